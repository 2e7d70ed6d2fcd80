package dev.nixexec.nix;

/** One answer of a package search: what to name in {@code packages}, its version and description. */
public record PackageHit(String attribute, String version, String description) {
}

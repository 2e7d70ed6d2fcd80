package dev.nixexec.nix;

/**
 * The configured nixpkgs URL resolved to one locked input: every build uses {@code lockedUrl};
 * {@code revision} (the git revision, or the NAR hash for path inputs) is recorded on every job, and
 * {@code narHash} identifies the content in cache keys (the locked URL also carries a modification
 * time that changes when nothing else does). {@code requiredNix} is the oldest Nix this nixpkgs
 * evaluates with, as its {@code lib/minver.nix} says (null: it says none, or a pin saved before it
 * was read).
 */
public record NixpkgsPin(String configuredUrl, String lockedUrl, String revision, String narHash, String requiredNix) {
}

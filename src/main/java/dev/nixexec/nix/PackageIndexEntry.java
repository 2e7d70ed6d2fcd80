package dev.nixexec.nix;

/**
 * One package of the search index: its attribute path, the package set it belongs to ({@code ""}
 * for a top-level attribute), its name inside that set, version and description.
 */
public record PackageIndexEntry(String attribute, String packageSet, String name, String version, String description) {

    static final int MAX_DESCRIPTION = 1000;

    public PackageIndexEntry {
        version = version == null ? "" : version;
        description = description == null ? "" : description.length() > MAX_DESCRIPTION
                ? description.substring(0, MAX_DESCRIPTION) : description;
    }
}

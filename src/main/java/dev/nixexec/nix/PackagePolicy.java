package dev.nixexec.nix;

import java.util.List;
import java.util.Optional;

/**
 * Deny list and optional allow list of package names. An entry {@code x} matches {@code x} itself,
 * every attribute below it ({@code x.dev}) and its package set ({@code xPackages.foo}); an entry
 * ending in '.' is a pure prefix ({@code python3Packages.} matches the whole set).
 */
public record PackagePolicy(List<String> denylist, Optional<List<String>> allowlist) {

    public PackagePolicy {
        denylist = List.copyOf(denylist);
        allowlist = allowlist.map(List::copyOf);
    }

    /** The reason the name is refused, or empty when it is allowed. */
    public Optional<String> rejection(PackageName name) {
        for (String entry : denylist) {
            if (matches(entry, name.value())) {
                return Optional.of("package '" + name + "' is denied by policy");
            }
        }
        if (allowlist.isPresent() && allowlist.get().stream().noneMatch(e -> matches(e, name.value()))) {
            return Optional.of("package '" + name + "' is not in the allowed packages");
        }
        return Optional.empty();
    }

    static boolean matches(String entry, String name) {
        if (entry.isEmpty()) {
            return false;
        }
        if (entry.endsWith(".")) {
            return name.startsWith(entry);
        }
        return name.equals(entry) || name.startsWith(entry + ".") || name.startsWith(entry + "Packages.");
    }
}

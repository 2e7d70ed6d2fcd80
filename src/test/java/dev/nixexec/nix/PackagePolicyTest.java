package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PackagePolicyTest {

    private static boolean allowed(PackagePolicy policy, String name) {
        return policy.rejection(PackageName.parse(name)).isEmpty();
    }

    @Test
    void denyEntryCoversNameSubAttributesAndItsPackageSet() {
        PackagePolicy policy = new PackagePolicy(List.of("firefox"), Optional.empty());
        assertFalse(allowed(policy, "firefox"));
        assertFalse(allowed(policy, "firefox.unwrapped"));
        assertFalse(allowed(policy, "firefoxPackages.x"));
        assertTrue(allowed(policy, "firefox-esr"));
        assertTrue(allowed(policy, "firefoxpwa"));
    }

    @Test
    void trailingDotIsAPrefix() {
        PackagePolicy policy = new PackagePolicy(List.of("python3Packages."), Optional.empty());
        assertFalse(allowed(policy, "python3Packages.requests"));
        assertTrue(allowed(policy, "python3"));
    }

    @Test
    void allowListAdmitsOnlyItsEntries() {
        PackagePolicy policy = new PackagePolicy(List.of("python3Packages.requests"),
                Optional.of(List.of("python3Packages.", "jq")));
        assertTrue(allowed(policy, "python3Packages.numpy"));
        assertTrue(allowed(policy, "jq"));
        assertFalse(allowed(policy, "curl"));
        assertFalse(allowed(policy, "python3Packages.requests"), "deny wins over allow");
    }

    @Test
    void rejectionNamesThePackage() {
        PackagePolicy policy = new PackagePolicy(List.of("curl"), Optional.empty());
        assertTrue(policy.rejection(PackageName.parse("curl")).orElseThrow().contains("'curl'"));
    }
}

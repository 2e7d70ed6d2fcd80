package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** A prebuild entry is a language and package names, or a language and a profile: nothing else gets through. */
class PrebuildEntryTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "cobol", "python --impure", "python ../../etc/passwd", "python a;b",
            "bash @strict jq", "bash @Strict", "bash @", "python ${builtins.readFile /etc/shadow}",
            "python \"pkgs.hello\"", "bash nixpkgs#hello"})
    void refusesWhatIsNotAnEntry(String raw) {
        assertThrows(IllegalArgumentException.class, () -> PrebuildEntry.parse(raw));
    }

    @Test
    void readsPackagesAndProfiles() {
        PrebuildEntry packages = PrebuildEntry.parse("  python   python3Packages.numpy jq ");
        assertEquals("python python3Packages.numpy jq", packages.text());
        assertTrue(packages instanceof PrebuildEntry.Packages p
                && p.request().packageNames().equals(List.of("jq", "python3Packages.numpy"))
                && p.language() == Language.PYTHON);
        assertEquals(new PrebuildEntry.FromProfile("bash @offline-review", Language.BASH, "offline-review"),
                PrebuildEntry.parse("bash @offline-review"));
        assertTrue(PrebuildEntry.parse("node") instanceof PrebuildEntry.Packages p && p.packages().isEmpty());
    }
}

package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PackageNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"jq", "python3Packages.numpy", "haskellPackages.text", "perlPackages.JSON",
            "lua5_4Packages.luafilesystem", "_1password", "gnome-shell", "a.b.c.d.e.f"})
    void acceptsAttributePaths(String name) {
        assertEquals(name, PackageName.parse(name).value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--option", "-rf", "a;rm -rf /", "$(id)", "`id`", "a b", "a..b", ".a", "a.",
            "pkgs/evil", "/nix/store/x", "a\"b", "a'b", "a\nb", "x${y}", "import ./x", "1abc", "a.b.c.d.e.f.g",
            "nixpkgs#hello", "github:NixOS/nixpkgs", "a=b", "a\u0000b"})
    void rejectsAnythingElse(String name) {
        assertThrows(IllegalArgumentException.class, () -> PackageName.parse(name));
    }

    @org.junit.jupiter.api.Test
    void rejectsOverlongNames() {
        assertThrows(IllegalArgumentException.class, () -> PackageName.parse("a".repeat(201)));
    }

    @org.junit.jupiter.api.Test
    void splitsSegments() {
        PackageName name = PackageName.parse("python3Packages.tinypkg");
        assertEquals(List.of("python3Packages", "tinypkg"), name.segments());
        assertEquals(List.of("tinypkg"), name.tail());
    }
}

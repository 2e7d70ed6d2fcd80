package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Nix versions as nix prints them and nixpkgs declares them, compared as nixpkgs compares them. */
class NixVersionTest {

    @Test
    void debiansNixIsOlderThanWhatCurrentNixpkgsNeeds() {
        NixVersion host = NixVersion.parse("nix (Nix) 2.8.0\n").orElseThrow();
        NixVersion required = NixVersion.ofMinver("# Expose the minimum required version for evaluating Nixpkgs\n\"2.18\"\n")
                .orElseThrow();
        assertEquals("2.8.0", host.text());
        assertEquals("2.18", required.text());
        assertTrue(host.compareTo(required) < 0);
        assertTrue(NixVersion.parse("nix (Nix) 2.18.1").orElseThrow().compareTo(required) > 0);
        assertEquals(0, NixVersion.parse("2.18").orElseThrow().compareTo(required));
        assertTrue(NixVersion.parse("nix (Nix) 2.24.0pre20240101_dirty").orElseThrow().compareTo(required) > 0);
    }

    @Test
    void aMinverThatSaysNoVersionRequiresNone() {
        assertEquals(Optional.empty(), NixVersion.ofMinver("# \"2.18\" in a comment only\n{ }\n"));
        assertEquals(Optional.empty(), NixVersion.parse(null));
    }
}

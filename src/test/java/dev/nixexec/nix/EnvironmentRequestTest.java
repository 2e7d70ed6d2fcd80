package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Haskell and Octave are not on the test machine: their Nix requests are checked here instead. */
class EnvironmentRequestTest {

    private static final NixpkgsPin PIN = new NixpkgsPin("path:/x", "path:/nix/store/abc-source?narHash=sha256-x", "sha256-x", "sha256-x", null);

    private static EnvironmentRequest request(Language language, String... packages) {
        return EnvironmentRequest.of(language, java.util.Arrays.stream(packages).map(PackageName::parse).toList());
    }

    @Test
    void haskellPackagesGoIntoGhcWithPackages() {
        Map<String, Object> nix = request(Language.HASKELL, "haskellPackages.text", "zlib").toNixRequest("x86_64-linux");
        assertEquals(List.of("ghc"), nix.get("interpreter"));
        assertEquals(List.of("haskellPackages", "ghcWithPackages"), nix.get("with_packages"));
        assertEquals(List.of(Map.of("name", "haskellPackages.text", "path", List.of("text"))), nix.get("set_packages"));
        assertEquals(List.of(Map.of("name", "zlib", "path", List.of("zlib"))), nix.get("packages"));
        assertEquals(List.of("runhaskell"), Language.HASKELL.command());
    }

    @Test
    void octavePackagesGoIntoOctaveWithPackages() {
        Map<String, Object> nix = request(Language.OCTAVE, "octavePackages.statistics").toNixRequest("x86_64-linux");
        assertEquals(List.of("octave"), nix.get("interpreter"));
        assertEquals(List.of("octave", "withPackages"), nix.get("with_packages"));
        assertEquals(List.of(Map.of("name", "octavePackages.statistics", "path", List.of("statistics"))),
                nix.get("set_packages"));
    }

    @Test
    void aLanguageWithoutASetTakesOtherSetsWithTheirInterpreters() {
        Map<String, Object> nix = request(Language.BASH, "jq", "python3Packages.numpy").toNixRequest("x86_64-linux");
        assertNull(nix.get("with_packages"));
        assertEquals(List.of(), nix.get("set_packages"));
        assertEquals(List.of(Map.of("name", "jq", "path", List.of("jq"))), nix.get("packages"));
        assertEquals(List.of(Map.of("with_packages", List.of("python3", "withPackages"), "members",
                List.of(Map.of("name", "python3Packages.numpy", "path", List.of("numpy"))))), nix.get("language_sets"));
    }

    @Test
    void anotherLanguagesSetComesWithItsInterpreterAndTheSetsMix() {
        Map<String, Object> nix = request(Language.PYTHON, "python3Packages.tinypkg", "perlPackages.JSON",
                "haskellPackages.split", "haskellPackages.text", "octavePackages.statistics").toNixRequest("x86_64-linux");
        assertEquals(List.of(Map.of("name", "python3Packages.tinypkg", "path", List.of("tinypkg"))), nix.get("set_packages"));
        assertEquals(List.of(), nix.get("packages"));
        assertEquals(List.of(
                Map.of("with_packages", List.of("haskellPackages", "ghcWithPackages"), "members", List.of(
                        Map.of("name", "haskellPackages.split", "path", List.of("split")),
                        Map.of("name", "haskellPackages.text", "path", List.of("text")))),
                Map.of("with_packages", List.of("perl", "withPackages"), "members",
                        List.of(Map.of("name", "perlPackages.JSON", "path", List.of("JSON")))),
                Map.of("with_packages", List.of("octave", "withPackages"), "members",
                        List.of(Map.of("name", "octavePackages.statistics", "path", List.of("statistics"))))),
                nix.get("language_sets"));
    }

    @Test
    void aPlainInterpreterBesideItsSetIsLeftToTheSet() {
        // both would put bin/python3 (bin/ghc) in the environment
        Map<String, Object> nix = request(Language.BASH, "python3", "python3Packages.tinypkg", "ghc", "haskellPackages.split",
                "perl").toNixRequest("x86_64-linux");
        assertEquals(List.of(Map.of("name", "perl", "path", List.of("perl"))), nix.get("packages"));
        Map<String, Object> own = request(Language.PYTHON, "python3", "python3Packages.tinypkg").toNixRequest("x86_64-linux");
        assertEquals(List.of(), own.get("packages"));
        Map<String, Object> plain = request(Language.PYTHON, "python3").toNixRequest("x86_64-linux");
        assertEquals(List.of(Map.of("name", "python3", "path", List.of("python3"))), plain.get("packages"));
        // and a tool the base has is not asked for twice
        Map<String, Object> everyday = request(Language.BASH, "gnugrep", "jq", "coreutils").toNixRequest("x86_64-linux");
        assertEquals(List.of(Map.of("name", "jq", "path", List.of("jq"))), everyday.get("packages"));
    }

    @Test
    void cacheKeyIgnoresOrderAndRepeatsButNotContent() {
        String a = request(Language.PYTHON, "python3Packages.b", "python3Packages.a").cacheKey("x86_64-linux", PIN, "h");
        String b = request(Language.PYTHON, "python3Packages.a", "python3Packages.b", "python3Packages.a")
                .cacheKey("x86_64-linux", PIN, "h");
        assertEquals(a, b);
        assertNotEquals(a, request(Language.PYTHON, "python3Packages.a").cacheKey("x86_64-linux", PIN, "h"));
        assertNotEquals(a, request(Language.PYTHON, "python3Packages.b", "python3Packages.a")
                .cacheKey("aarch64-linux", PIN, "h"));
        assertNotEquals(a, request(Language.PYTHON, "python3Packages.b", "python3Packages.a").cacheKey("x86_64-linux",
                new NixpkgsPin("path:/x", "path:/nix/store/def-source", "sha256-y", "sha256-y", null), "h"));
        assertNotEquals(a, request(Language.PYTHON, "python3Packages.b", "python3Packages.a")
                .cacheKey("x86_64-linux", PIN, "other-expression"));
        assertNotEquals(a, request(Language.LUA, "python3Packages.b", "python3Packages.a").cacheKey("x86_64-linux", PIN, "h"));
    }

    @Test
    void everyEnvironmentHasTheEverydayToolsAndACaBundleOnlyWhenAsked() {
        List<List<String>> everyday = List.of(List.of("bash"), List.of("coreutils"), List.of("findutils"),
                List.of("gnugrep"), List.of("gnused"), List.of("gawk"), List.of("diffutils"), List.of("gnutar"),
                List.of("gzip"));
        EnvironmentRequest plain = EnvironmentRequest.of(Language.PYTHON, List.of());
        EnvironmentRequest withBundle = EnvironmentRequest.of(Language.PYTHON, List.of(), true);
        assertEquals(everyday, plain.toNixRequest("x86_64-linux").get("base"));
        List<List<String>> bundled = new java.util.ArrayList<>(everyday);
        bundled.add(List.of("cacert"));
        assertEquals(bundled, withBundle.toNixRequest("x86_64-linux").get("base"));
        // not the key of the environments built before the everyday tools were in (no grep there)
        // (sha256 of "v1\nx86_64-linux\nsha256-x\nh\npython\n", the key then)
        assertNotEquals("847fdba0ae6e511a2638b2a90c7dcaf594b60272", plain.cacheKey("x86_64-linux", PIN, "h"));
        assertNotEquals(plain.cacheKey("x86_64-linux", PIN, "h"), withBundle.cacheKey("x86_64-linux", PIN, "h"));
    }
}

package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SeatbeltProfileTest {

    static final String ENV = "/nix/store/aaaa-env";
    static final List<String> CLOSURE = List.of(ENV, "/nix/store/bbbb-python3-3.12", "/nix/store/cccc-libffi");
    static final SeatbeltProfile.JobDirectories DIRS = SeatbeltProfile.JobDirectories.in(Path.of("/private/var/jobs/run-1"));

    static SandboxSpec spec(List<String> closure, Map<String, String> env, boolean network) {
        Limits limits = new Limits(Duration.ofSeconds(5), 256L << 20, 64, 0, 1L << 20, 1L << 20, 1L << 20, 1L << 16);
        return Specs.fresh(ENV, closure, "main.py", "print(1)".getBytes(), List.of("python3", "-u"), env,
                new byte[0], limits, network);
    }

    static SeatbeltProfile profile(List<String> closure, boolean network) {
        return SeatbeltProfile.of(spec(closure, Map.of(), network), DIRS);
    }

    @Test
    void deniesEverythingNotAllowed() {
        assertTrue(profile(CLOSURE, false).text().startsWith("(version 1)\n(deny default)\n"));
    }

    @Test
    void profileIsWellFormed() {
        for (boolean network : List.of(false, true)) {
            List<String> forms = topLevelForms(profile(CLOSURE, network).text());
            assertEquals("(version 1)", forms.get(0));
            assertTrue(forms.stream().skip(1).allMatch(f -> f.startsWith("(allow ") || f.equals("(deny default)")), forms::toString);
        }
    }

    @Test
    void noNetworkUnlessRequested() {
        String text = profile(CLOSURE, false).text();
        assertFalse(text.contains("network"), text);
        assertFalse(text.contains("mDNSResponder"), text);
        assertFalse(text.contains("dnssd"), text);
    }

    @Test
    void requestedNetworkIsOutboundOnly() {
        List<String> networkRules = topLevelForms(profile(CLOSURE, true).text()).stream()
                .filter(f -> f.contains("network")).toList();
        assertEquals(List.of("(allow network-outbound (remote ip))",
                "(allow network-outbound (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))"),
                networkRules);
    }

    @Test
    void eachClosurePathIsReadableAndExecutable() {
        String text = profile(CLOSURE, false).text();
        for (String path : CLOSURE) {
            assertTrue(text.contains("(allow file-read* file-map-executable process-exec (subpath \"" + path + "\"))\n"), path);
        }
    }

    @Test
    void execIsAllowedOnlyInTheClosure() {
        List<String> execRules = topLevelForms(profile(CLOSURE, true).text()).stream()
                .filter(f -> f.contains("process-exec")).toList();
        assertEquals(CLOSURE.size(), execRules.size());
        for (String rule : execRules) {
            assertTrue(CLOSURE.stream().anyMatch(p -> rule.endsWith("(subpath \"" + p + "\"))")), rule);
        }
    }

    @Test
    void environmentPathIsIncludedEvenWhenMissingFromTheClosure() {
        String text = profile(List.of("/nix/store/bbbb-python3-3.12"), false).text();
        assertTrue(text.contains("process-exec (subpath \"" + ENV + "\"))"));
    }

    @Test
    void writesGoOnlyToWorkspaceAndTmp() {
        for (boolean network : List.of(false, true)) {
            List<String> writeRules = topLevelForms(profile(CLOSURE, network).text()).stream()
                    .filter(f -> f.contains("file-write")).toList();
            assertEquals(List.of(
                    "(allow file-write-data (literal \"/dev/null\"))",
                    "(allow file-read* file-write* (subpath (param \"WORKSPACE_DIR\")) (subpath (param \"TMP_DIR\")))"),
                    writeRules);
        }
    }

    @Test
    void jobDirectoriesArriveAsParametersNotText() {
        SeatbeltProfile profile = profile(CLOSURE, false);
        assertEquals(Map.of("CODE_DIR", "/private/var/jobs/run-1/code",
                "WORKSPACE_DIR", "/private/var/jobs/run-1/workspace",
                "TMP_DIR", "/private/var/jobs/run-1/tmp"), profile.parameters());
        assertFalse(profile.text().contains("/private/var/jobs"));
        assertTrue(profile.text().contains("(allow file-read* (subpath (param \"CODE_DIR\")))"));
        assertEquals(List.of("-D", "CODE_DIR=/private/var/jobs/run-1/code", "-D", "TMP_DIR=/private/var/jobs/run-1/tmp",
                "-D", "WORKSPACE_DIR=/private/var/jobs/run-1/workspace"), profile.parameterOptions());
    }

    @Test
    void storeAncestorsAreStatableOnly() {
        assertTrue(profile(CLOSURE, false).text().contains(
                "(allow file-read-metadata (literal \"/nix/store\") (literal \"/nix\") (literal \"/\"))\n"));
    }

    @Test
    void quoteAndBackslashAreEscaped() {
        String odd = "/nix/store/dddd-we\"ird\\name";
        String text = profile(List.of(ENV, odd), false).text();
        assertTrue(text.contains("(subpath \"/nix/store/dddd-we\\\"ird\\\\name\")"), text);
        assertFalse(text.contains("we\"ird"));
        assertTrue(topLevelForms(text).stream().anyMatch(f -> f.contains("dddd")));
        assertEquals("\"/a\\\\b\\\"c\"", SeatbeltProfile.literal("/a\\b\"c"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/nix/store/eeee-x\n(allow default)", "/nix/store/eeee-x\0", "/nix/store/eeee-\r",
            "/nix/store/eeee-\t", "/nix/store/eeee-\u0085"})
    void controlCharactersAreRefused(String path) {
        assertThrows(IllegalArgumentException.class, () -> profile(List.of(ENV, path), false));
        assertThrows(IllegalArgumentException.class, () -> SeatbeltProfile.literal(path));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/Users/someone", "/nix/store", "/nix/store/", "/nix/store/../etc", "/nix/store/x/..",
            "nix/store/ffff-rel", "/nix/store/ffff-a/lib", "/nix/store//ffff-a", "/nix/store/.links"})
    void onlyEntriesOfTheStoreDirectoryAreClosurePaths(String path) {
        assertThrows(IllegalArgumentException.class, () -> profile(List.of(ENV, path), false));
    }

    @Test
    void jobDirectoryWithControlCharacterIsRefused() {
        SeatbeltProfile.JobDirectories dirs = SeatbeltProfile.JobDirectories.in(Path.of("/private/var/jobs/a\nb"));
        assertThrows(IllegalArgumentException.class, () -> SeatbeltProfile.of(spec(CLOSURE, Map.of(), false), dirs));
    }

    @Test
    void userEnvironmentNeverReachesTheProfile() {
        SeatbeltProfile profile = SeatbeltProfile.of(
                spec(CLOSURE, Map.of("SECRET_NAME", "secret-value\") (allow default)"), true), DIRS);
        assertFalse(profile.text().contains("SECRET_NAME"));
        assertFalse(profile.text().contains("secret-value"));
        assertFalse(profile.text().contains("(allow default)"));
        assertFalse(profile.parameters().toString().contains("secret"));
    }

    /** The profile's top-level s-expressions, comments dropped: a parenthesis or quote off balance fails here. */
    static List<String> topLevelForms(String text) {
        List<String> forms = new ArrayList<>();
        int depth = 0;
        int start = -1;
        boolean inString = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == ';') {
                i = text.indexOf('\n', i);
                assertTrue(i > 0, "comment without end of line");
            } else if (c == '"') {
                inString = true;
            } else if (c == '(') {
                if (depth++ == 0) {
                    start = i;
                }
            } else if (c == ')') {
                assertTrue(depth > 0, "unbalanced ) at " + i);
                if (--depth == 0) {
                    forms.add(text.substring(start, i + 1).replaceAll("\\s*\n\\s*", " "));
                }
            } else if (depth == 0) {
                assertTrue(Character.isWhitespace(c), "text outside a form at " + i);
            }
        }
        assertFalse(inString, "unterminated string");
        assertEquals(0, depth, "unbalanced (");
        return forms;
    }
}

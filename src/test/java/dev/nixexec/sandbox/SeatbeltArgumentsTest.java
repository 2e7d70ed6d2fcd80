package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SeatbeltArgumentsTest {

    private static final Map<String, String> USER_ENV = Map.of("GREETING", "hello world", "PATH", "/usr/bin");
    private static final SandboxSpec SPEC = SeatbeltProfileTest.spec(SeatbeltProfileTest.CLOSURE, USER_ENV, false);
    private static final SeatbeltProfile PROFILE = SeatbeltProfile.of(SPEC, SeatbeltProfileTest.DIRS);

    @Test
    void sandboxExecWithProfileAndParametersThenTheCommand() {
        List<String> argv = SeatbeltArguments.build(SPEC, PROFILE, SeatbeltProfileTest.DIRS);
        List<String> expected = new java.util.ArrayList<>(List.of("/usr/bin/sandbox-exec", "-p", PROFILE.text()));
        expected.addAll(PROFILE.parameterOptions());
        expected.addAll(List.of("--", "/nix/store/aaaa-env/bin/python3", "-u", "/private/var/jobs/run-1/code/main.py"));
        assertEquals(expected, argv);
    }

    @Test
    void doubleDashComesBeforeTheCommand() {
        List<String> argv = SeatbeltArguments.build(SPEC, PROFILE, SeatbeltProfileTest.DIRS);
        int separator = argv.indexOf("--");
        assertTrue(separator > 0);
        assertEquals("/nix/store/aaaa-env/bin/python3", argv.get(separator + 1));
        assertTrue(argv.subList(1, separator).stream().noneMatch(a -> a.contains("/nix/store/aaaa-env/bin")));
    }

    @Test
    void userEnvironmentGoesToTheProcessOnly() {
        List<String> argv = SeatbeltArguments.build(SPEC, PROFILE, SeatbeltProfileTest.DIRS);
        assertFalse(String.join("\n", argv).contains("hello world"));
        assertFalse(String.join("\n", argv).contains("GREETING"));
        assertEquals("hello world", SeatbeltArguments.environment(SPEC, SeatbeltProfileTest.DIRS).get("GREETING"));
    }

    @Test
    void environmentPointsAtTheJobDirectoriesAndCannotBeOverridden() {
        Map<String, String> env = SeatbeltArguments.environment(SPEC, SeatbeltProfileTest.DIRS);
        assertEquals("/nix/store/aaaa-env/bin", env.get("PATH"));
        assertEquals("/private/var/jobs/run-1/workspace", env.get("HOME"));
        assertEquals("/private/var/jobs/run-1/tmp", env.get("TMPDIR"));
        assertEquals("sandbox", env.get("USER"));
        assertEquals("sandbox", env.get("LOGNAME"));
        assertEquals("C.UTF-8", env.get("LANG"));
        assertEquals("1", env.get("PYTHONUNBUFFERED"));
        // Ruby's prelude is a file beside the code on Linux only
        assertFalse(env.containsKey("RUBYOPT"));
        assertEquals(10, env.size());
    }
}

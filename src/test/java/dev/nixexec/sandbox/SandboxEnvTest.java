package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SandboxEnvTest {

    @Test
    void acceptsOrdinaryVariables() {
        assertEquals(0, SandboxEnv.problems(Map.of("GREETING", "hi", "_X1", "", "LANG", "de_DE.UTF-8"), 1000).size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "GLIBC_TUNABLES", "PATH", "HOME",
            "lower", "1ABC", "A-B", "A B", "A=B", "--setenv", ""})
    void refusesNames(String name) {
        var problems = SandboxEnv.problems(Map.of(name, "x"), 1000);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("'" + name + "'"), problems.get(0));
    }

    @Test
    void refusesNulAndOversize() {
        assertEquals(1, SandboxEnv.problems(Map.of("A", "x\u0000y"), 1000).size());
        assertEquals(1, SandboxEnv.problems(Map.of("A", "x".repeat(2000)), 1000).size());
    }
}

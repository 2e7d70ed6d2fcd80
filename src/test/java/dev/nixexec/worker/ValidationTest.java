package dev.nixexec.worker;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input is refused before anything is built or run, with the field and the reason. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ValidationTest {

    @Inject
    ExecutionEngine engine;

    private InvalidRequestException refused(ExecutionRequest request) {
        int nixRuns = NixSpy.invocations().size();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> engine.validate(request));
        assertEquals(nixRuns, NixSpy.invocations().size(), "a refused request started nix");
        return e;
    }

    @Test
    void unknownLanguage() {
        InvalidRequestException e = refused(ExecutionRequest.of("cobol", "DISPLAY 'HI'."));
        assertEquals("language", e.errors().get(0).field());
        assertTrue(e.errors().get(0).message().contains("unknown language 'cobol'"));
        assertTrue(e.errors().get(0).message().contains("python, bash, node"));
    }

    @Test
    void emptyCode() {
        assertEquals("code", refused(ExecutionRequest.of("python", "  \n")).errors().get(0).field());
        assertEquals("code", refused(new ExecutionRequest("python", null, null, null, null, null, false)).errors().get(0).field());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--impure", "-L", "python3Packages.numpy; rm -rf /", "$(touch /tmp/pwned)", "`id`",
            "nixpkgs#hello", "../../etc/passwd", "a b", "python3Packages..x", "x\ny", "(import <nixpkgs> {})"})
    void malformedPackageNames(String name) {
        InvalidRequestException e = refused(ExecutionRequest.of("python", "print(1)").withPackages("jq", name));
        assertEquals(1, e.errors().size());
        assertEquals("packages[1]", e.errors().get(0).field());
        assertFalse(e.tooLarge());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "bad-name", "1X", "PATH"})
    void badEnvNames(String name) {
        InvalidRequestException e = refused(ExecutionRequest.of("python", "print(1)").withEnv(Map.of(name, "x")));
        assertEquals("env", e.errors().get(0).field());
        assertTrue(e.errors().get(0).message().contains(name));
    }

    @Test
    void badTimeouts() {
        assertEquals("timeout", refused(ExecutionRequest.of("python", "1").withTimeout(Duration.ZERO)).errors().get(0).field());
        assertEquals("timeout", refused(ExecutionRequest.of("python", "1").withTimeout(Duration.ofHours(5))).errors().get(0).field());
    }

    @Test
    void tooLargeIsToldApart() {
        InvalidRequestException e = refused(ExecutionRequest.of("python", "#" + "x".repeat(2 << 20)));
        assertTrue(e.tooLarge());
        assertEquals("code", e.errors().get(0).field());
        assertTrue(refused(new ExecutionRequest("python", "1", List.of(), Map.of(), "x".repeat(2 << 20),
                Optional.empty(), false)).tooLarge());
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        InvalidRequestException e = refused(new ExecutionRequest("cobol", "", List.of("-x"), Map.of("LD_PRELOAD", "/x.so"),
                "", java.util.Optional.empty(), false));
        assertEquals(List.of("language", "code", "packages[0]", "env"), e.errors().stream().map(FieldError::field).toList());
    }
}

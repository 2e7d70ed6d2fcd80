package dev.nixexec.worker;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;

import static dev.nixexec.testing.Runs.describe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.OwnProcesses;
import dev.nixexec.testing.ShortWaits;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Build failures are platform errors with a useful message; the build has its own timeout. */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ShortWaits.class)
class BuildFailureIT {

    @Inject
    ExecutionEngine engine;

    @Test
    void failedBuildKeepsTheTailOfItsLog() {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", "true").withPackages("broken"));
        assertEquals("error", result.status());
        assertEquals("build_failed", result.error().orElseThrow().code(), describe(result));
        String message = result.error().orElseThrow().message();
        assertTrue(message.contains("the compiler exploded"), message);
        assertFalse(message.contains("log line 1\n"), "the whole log instead of its tail: " + message);
    }

    @Test
    void slowBuildTimesOutOnItsOwnClock() throws InterruptedException {
        long start = System.nanoTime();
        // the fixture's slow build: a child of this JVM's nix, seen while it runs
        try (OwnProcesses build = OwnProcesses.marked("sleep 600")) {
            ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", "true").withPackages("slow"));
            assertEquals("build_timeout", result.error().orElseThrow().code(), describe(result));
            assertTrue((System.nanoTime() - start) / 1_000_000_000 < 30);
            List<ProcessHandle> left = build.aliveAfter(Duration.ofSeconds(2));
            assertTrue(left.isEmpty(), "the build's processes outlived its timeout: " + OwnProcesses.describe(left));
        }
    }
}

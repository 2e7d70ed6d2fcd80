package dev.nixexec.sandbox;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.OwnProcesses;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionEvent;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Hostile code, each bounded with a clear result, and nothing left behind on the host. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SandboxAbuseTest {

    private static final Limits TIGHT = new Limits(Duration.ofSeconds(5), 256L << 20, 64, 0, 8L << 20,
            32L << 20, 64L << 20, 64 * 1024);

    @Inject
    ExecutionEngine engine;

    @Inject
    StatePaths paths;

    @Inject
    Cgroups cgroups;

    @ConfigProperty(name = "nixexec.sandbox.warm-launchers")
    int warmLaunchers;

    private ExecutionResult run(String language, String code, Limits limits) {
        ExecutionEngine.ValidatedRequest request = engine.validate(ExecutionRequest.of(language, code)).withLimits(limits);
        return engine.execute(request, () -> true, environment -> true).filter(e -> e instanceof ExecutionEvent.Finished)
                .map(e -> ((ExecutionEvent.Finished) e).result()).toUni().await().atMost(Duration.ofMinutes(3));
    }

    private OwnProcesses sandboxed;

    @BeforeEach
    void watchTheRuns() {
        sandboxed = OwnProcesses.watch(SandboxAbuseTest::sandboxed);
    }

    /** This instance's run directories and the processes it started: nothing of another service's. */
    @AfterEach
    void nothingLeftBehind() throws IOException, InterruptedException {
        try (OwnProcesses watched = sandboxed) {
            // workspace directories (ws-…, some mounted ahead for the next runs) and the runs' shared /etc files (etc-…) are not these runs';
            // a run's directory goes just after its result (in the background)
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (runDirectories() > warmLaunchers && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(runDirectories() <= warmLaunchers, "run directories left behind");
            List<ProcessHandle> left = watched.aliveAfter(Duration.ofSeconds(1));
            assertTrue(left.isEmpty(), "sandboxed processes outlived their run: " + OwnProcesses.describe(left));
        }
    }

    private long runDirectories() throws IOException {
        try (Stream<java.nio.file.Path> jobs = Files.list(paths.jobsDir())) {
            return jobs.filter(p -> !p.getFileName().toString().startsWith("ws-")
                    && !p.getFileName().toString().startsWith("etc-")).count();
        }
    }

    /** Marked by the test's code, or running under one of the per-run host uids (launchers waiting aside). */
    private static boolean sandboxed(ProcessHandle process) {
        String commandLine = OwnProcesses.commandLine(process);
        if (commandLine.contains("nixexec-abuse")) {
            return true;
        }
        if (commandLine.contains("nix-exec-wait")) {
            return false;
        }
        try {
            int uid = Integer.parseInt(process.info().user().orElse(""));
            return uid >= 3_200_000 && uid < 3_200_000 + 4096;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Test
    void infiniteLoopTimesOut() {
        long start = System.nanoTime();
        ExecutionResult result = run("python", "while True: pass", TIGHT.withTimeout(Duration.ofSeconds(2)));
        assertEquals("timed_out", result.status(), describe(result));
        assertTrue(result.timedOut());
        assertEquals("timeout", result.limitHit().orElseThrow().id());
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20);
    }

    @Test
    void cpuTimeIsLimited() {
        Limits cpu = new Limits(Duration.ofSeconds(30), TIGHT.memoryBytes(), 64, 1, TIGHT.maxFileBytes(),
                TIGHT.tmpBytes(), TIGHT.workspaceBytes(), TIGHT.maxOutputBytes());
        ExecutionResult result = run("python", "while True: pass", cpu);
        assertEquals("failed", result.status(), describe(result));
        assertEquals("cpu_time", result.limitHit().orElseThrow().id(), describe(result));
        assertTrue(result.durationMs() < 10_000, describe(result));
    }

    @Test
    void forkBombIsContained() {
        ExecutionResult result = run("bash", "f() { f | f & }; f; sleep 3; echo survived",
                TIGHT.withTimeout(Duration.ofSeconds(6)));
        assertFalse(result.status().equals("error"), describe(result));
        assertTrue(result.durationMs() < 15_000, describe(result));
        ExecutionResult after = run("bash", "echo still fine", TIGHT);
        assertEquals("still fine\n", stdout(after), "the host can still start sandboxes: " + describe(after));
    }

    @Test
    void processCountIsLimited() {
        ExecutionResult result = run("python", """
                import os, time
                n = 0
                try:
                    for i in range(200):
                        if os.fork() == 0:
                            time.sleep(30)
                            os._exit(0)
                        n += 1
                except OSError as e:
                    print('fork refused after', n)
                """, TIGHT);
        assertTrue(stdout(result).startsWith("fork refused after"), describe(result));
        int forked = Integer.parseInt(stdout(result).trim().replaceAll("\\D+", ""));
        assertTrue(forked < TIGHT.maxProcesses(), "forked " + forked);
    }

    @Test
    void memoryBombIsKilled() {
        ExecutionResult result = run("python", """
                chunks = []
                while True:
                    chunks.append(bytearray(16 * 1024 * 1024))
                """, TIGHT.withTimeout(Duration.ofSeconds(30)));
        assertEquals("failed", result.status(), describe(result));
        if (cgroups.available()) {
            assertEquals("memory", result.limitHit().orElseThrow().id(), describe(result));
            assertEquals(137, result.exitCode().orElseThrow());
        } else {
            assertTrue(result.stderr().text().contains("MemoryError"), describe(result));
        }
    }

    @Test
    void diskFillStopsAtTheTmpfsSize() {
        ExecutionResult result = run("bash", """
                for dir in /tmp /workspace; do
                    i=0
                    while [ $i -lt 20 ] && dd if=/dev/zero of=$dir/fill$i bs=1M count=6 2>/dev/null; do i=$((i + 1)); done
                    echo "$dir $i"
                done
                """, TIGHT.withTimeout(Duration.ofSeconds(20)));
        // 6 MiB files (under the 8 MiB file-size limit): /tmp (32 MiB) holds five, /workspace (64 MiB) ten
        assertEquals("/tmp 5\n/workspace 10\n", stdout(result), describe(result));
    }

    @Test
    void fileSizeIsLimited() {
        ExecutionResult python = run("python", """
                import os
                try:
                    with open('/workspace/big', 'wb') as f:
                        f.write(b'x' * (16 * 1024 * 1024))
                except OSError as e:
                    print('refused', e.errno)
                print(os.path.getsize('/workspace/big'))
                """, TIGHT);
        assertEquals("refused 27\n" + TIGHT.maxFileBytes() + "\n", stdout(python), describe(python));

        ExecutionResult bash = run("bash", "dd if=/dev/zero of=/workspace/big bs=1M count=16", TIGHT);
        assertEquals("failed", bash.status(), describe(bash));
        assertEquals("file_size", bash.limitHit().orElseThrow().id(), describe(bash));
    }

    @Test
    void aGigabyteOfOutputIsCountedButNotKept() {
        ExecutionResult result = run("python", """
                import sys
                block = b'y' * (1 << 20)
                for _ in range(1024):
                    sys.stdout.buffer.write(block)
                print('done', file=sys.stderr)
                """, TIGHT.withTimeout(Duration.ofSeconds(120)));
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals(1L << 30, result.stdout().totalBytes());
        assertTrue(result.stdout().truncated());
        assertEquals(TIGHT.maxOutputBytes(), result.stdout().head().length + result.stdout().tail().length);
        assertEquals("done\n", result.stderr().text());
    }

    @Test
    void detachedChildDiesWithTheRun() {
        long start = System.nanoTime();
        ExecutionResult result = run("bash", """
                (setsid bash -c 'sleep 120; :' nixexec-abuse </dev/null >/dev/null 2>&1 &)
                nohup bash -c 'sleep 121; :' nixexec-abuse >/dev/null 2>&1 &
                disown
                echo parent done
                """, TIGHT.withTimeout(Duration.ofSeconds(30)));
        assertEquals("parent done\n", stdout(result), describe(result));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 20, "the run waited for its children");
    }

    @Test
    void childHoldingStdoutDoesNotHoldTheRun() {
        ExecutionResult result = run("bash", "bash -c 'sleep 100; :' nixexec-abuse & echo started", TIGHT.withTimeout(Duration.ofSeconds(30)));
        assertEquals("succeeded", result.status(), describe(result));
        assertTrue(result.durationMs() < 10_000, describe(result));
    }
}

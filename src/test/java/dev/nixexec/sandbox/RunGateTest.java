package dev.nixexec.sandbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No user code starts before the run's gate opens: bubblewrap sets the sandbox up and waits for its
 * seccomp program, which comes only through the gate. A gate that says no, or one closed with
 * nothing written (as when the service dies), starts nothing.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class RunGateTest {

    private static final Limits LIMITS = new Limits(Duration.ofSeconds(10), 256L << 20, 64, 0, 8L << 20,
            32L << 20, 32L << 20, 64 * 1024);
    private static final String MARK = "open('/workspace/ran', 'w').write('x'); print('ran')";

    @Inject
    BwrapSandbox sandbox;

    @Inject
    LauncherPool launchers;

    @Inject
    EnvironmentCache environments;

    @Inject
    StatePaths paths;

    private SandboxSpec spec(Path workspace) throws Exception {
        Environment env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
        return Specs.materialised(env.storePath(), env.closure(), Language.PYTHON.fileName(),
                MARK.getBytes(StandardCharsets.UTF_8), Language.PYTHON.command(), Map.of(), new byte[0], LIMITS, false,
                workspace);
    }

    private final List<Path> workspaces = new ArrayList<>();

    /**
     * Where the service materialises a workspace: in this instance's jobs directory, which the
     * run's uid can reach whatever directory the checkout is in.
     */
    private Path workspace() throws Exception {
        Path dir = Files.createDirectory(paths.jobsDir().resolve("ws-" + UUID.randomUUID()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        workspaces.add(dir);
        return dir;
    }

    @AfterEach
    void removeWorkspaces() {
        workspaces.forEach(ChildStreams::deleteTree);
    }

    @Test
    void theCodeWaitsForTheGate() throws Exception {
        Path workspace = workspace();
        AtomicBoolean ranBeforeTheGate = new AtomicBoolean(true);
        SandboxResult result = sandbox.run(spec(workspace), () -> {
            try {
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                        .until(() -> !Files.exists(workspace.resolve("ran")));
                ranBeforeTheGate.set(false);
            } catch (ConditionTimeoutException ran) {
                // stays true
            }
            return true;
        }).filter(e -> e instanceof SandboxEvent.Exited).map(e -> ((SandboxEvent.Exited) e).result())
                .toUni().await().atMost(Duration.ofMinutes(1));
        assertFalse(ranBeforeTheGate.get(), "the code ran before its gate opened");
        assertEquals("ran\n", result.stdout().text());
        assertTrue(Files.exists(workspace.resolve("ran")));
    }

    @Test
    void aGateThatSaysNoStartsNothing() throws Exception {
        Path workspace = workspace();
        Throwable failure = sandbox.run(spec(workspace), () -> false).collect().asList()
                .onItemOrFailure().transform((items, error) -> error).await().atMost(Duration.ofMinutes(1));
        assertInstanceOf(RunCalledOff.class, failure);
        await("the code ran although its gate said no").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> !Files.exists(workspace.resolve("ran")));
    }

    /** What a service that dies at the gate leaves: the gate closed, nothing written. */
    @Test
    void aGateClosedEmptyStartsNothing() throws Exception {
        Path workspace = workspace();
        SandboxSpec spec = spec(workspace);
        Launcher launcher = launchers.take(LIMITS);
        try {
            FileChannel gate = launchers.gate(launcher);
            java.nio.file.Files.walk(workspace).forEach(p -> launcher.uid().ifPresent(uid -> {
                try {
                    Files.setAttribute(p, "unix:uid", uid);
                    Files.setAttribute(p, "unix:gid", uid);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }));
            sandbox.writeRun(launcher, spec, StoreMount.WHOLE_STORE);
            OutputStream stdin = launcher.process().getOutputStream();
            stdin.write("10 11\n".getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            Thread.sleep(300);
            gate.close();
            assertTrue(launcher.process().waitFor(10, TimeUnit.SECONDS), "bubblewrap went on waiting");
            assertNotEquals(0, launcher.process().exitValue());
            String stdout = new String(launcher.process().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals("", stdout);
            assertFalse(Files.exists(workspace.resolve("ran")), "the code ran through a gate closed empty");
        } finally {
            launchers.release(launcher);
        }
    }
}

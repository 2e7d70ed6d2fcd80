package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The namespace a networked run's set-up enters is the one it found, whatever became of the process it found it through. */
class HeldNetNamespaceTest {

    private Process sandbox;
    private Path namespace;

    @BeforeEach
    void aProcessInANetworkNamespaceOfItsOwn() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root enters another process's namespace");
        sandbox = new ProcessBuilder("unshare", "--net", "--", "sleep", "60").start();
        Path own = Files.readSymbolicLink(Path.of("/proc/self/ns/net"));
        Path link = Path.of("/proc", Long.toString(sandbox.pid()), "ns", "net");
        for (int i = 0; i < 5000 && (namespace == null || namespace.equals(own)); i++) {
            namespace = Files.readSymbolicLink(link);
            Thread.sleep(1);
        }
        assertNotEquals(own, namespace, "unshare --net made no namespace");
    }

    @AfterEach
    void end() {
        if (sandbox != null) {
            sandbox.destroyForcibly();
        }
    }

    @Test
    void itIsEnteredStillOnceTheProcessIsGone() throws Exception {
        try (HeldNetNamespace held = HeldNetNamespace.open(sandbox.pid(), sandbox::isAlive)) {
            sandbox.destroyForcibly();
            sandbox.waitFor();
            Process inside = new ProcessBuilder("nsenter", "--net=" + held.path(), "--", "readlink", "/proc/self/ns/net")
                    .redirectErrorStream(true).start();
            String entered = new String(inside.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(0, inside.waitFor(), entered);
            assertEquals(namespace.toString(), entered);
        }
    }

    @Test
    void aPidThatIsNoLongerTheSandboxIsNotEntered() {
        SandboxException refused = assertThrows(SandboxException.class, () -> HeldNetNamespace.open(sandbox.pid(), () -> false));
        assertEquals("the sandbox ended before its network was set up", refused.getMessage());
    }
}

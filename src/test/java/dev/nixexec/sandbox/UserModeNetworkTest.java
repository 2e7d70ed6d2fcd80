package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A networked run's network, made beside a stand-in for bubblewrap ({@code unshare --fork}: a parent
 * here, its child in a network namespace of its own), in a namespace that no test shares.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class UserModeNetworkTest {

    @Inject
    UserModeNetwork network;

    /**
     * Networked runs failed now and then under load ("nsenter: cannot open /proc/N/ns/net"): the
     * relay brought the namespace's loopback up while bubblewrap, still setting the sandbox up, had
     * yet to give loopback its address, which the kernel had given it already; bubblewrap then
     * ended ("loopback: Failed RTM_NEWADDR"). Loopback is bubblewrap's: the network leaves it down.
     */
    @Test
    void theNetworkLeavesTheSandboxsLoopbackToBubblewrap(@TempDir Path dir) throws Exception {
        // skipped as another user, as the README lists; as root the network must be there (.ci/run installs it)
        assumeTrue("root".equals(System.getProperty("user.name")), "a run's own network needs root");
        assertEquals(Optional.empty(), network.unavailableReason());
        Process bwrap = new ProcessBuilder("unshare", "--net", "--fork", "--", "sleep", "60").start();
        try (UserModeNetwork.Attached attached = network.attach(bwrap.pid(), dir.resolve("network.log"), bwrap::isAlive)) {
            String child = Files.readString(Path.of("/proc", Long.toString(bwrap.pid()), "task", Long.toString(bwrap.pid()),
                    "children")).strip();
            String netns = "--net=/proc/" + child + "/ns/net";
            String loopback = inside(netns, "ip", "-o", "link", "show", "lo");
            assertTrue(loopback.contains("state DOWN"), loopback);
            String tap = inside(netns, "ip", "-o", "-4", "addr", "show", "dev", "tap0");
            assertTrue(tap.contains(" inet 10.0.2.100/24 "), tap);
            String link = inside(netns, "ip", "-o", "link", "show", "tap0");
            assertTrue(link.contains(",UP") && link.contains(" mtu 65520 "), link);
            assertEquals("default via 10.0.2.2 dev tap0", inside(netns, "ip", "route", "show", "default").strip());
        } finally {
            bwrap.destroyForcibly();
        }
    }

    private static String inside(String netns, String... command) throws Exception {
        String[] argv = new String[command.length + 3];
        argv[0] = "nsenter";
        argv[1] = netns;
        argv[2] = "--";
        System.arraycopy(command, 0, argv, 3, command.length);
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        return output;
    }
}

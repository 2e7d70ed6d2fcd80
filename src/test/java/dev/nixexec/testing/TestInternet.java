package dev.nixexec.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The tests' own internet, touching nothing of the host's network: two network namespaces this
 * resource makes and removes, their names its own (so another instance's run beside it is left
 * alone). {@code egress} is where networked runs' traffic leaves from (the service's
 * {@code nixexec.sandbox.network-egress-namespace}); a veth pair links it to {@code inet}, which
 * holds documentation addresses and the servers of {@code net/internet.py}: HTTP on port 8000 of
 * {@link #WEB}, {@link #ALLOWED_PRIVATE}, {@link #PRIVATE} and {@link #METADATA}, UDP echo on 7007
 * and DNS for {@code *.example.test} on {@link #WEB}. The egress namespace answers HTTP on its own
 * loopback (port 8000), which the user-mode stack must not offer. {@code nixexec-test.internet.egress}
 * names the egress namespace, for a benchmark's baseline run there.
 */
public class TestInternet implements QuarkusTestResourceLifecycleManager {

    public static final String WEB = "198.51.100.2";
    private static final String EGRESS_SIDE = "198.51.100.1";
    /** A private address the service's profile allows (nixexec.sandbox.network-allowed-ranges). */
    public static final String ALLOWED_PRIVATE = "10.9.9.9";
    public static final String PRIVATE = "172.16.5.5";
    public static final String METADATA = "169.254.169.254";

    private final String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
    private final String egress = "nxt-" + id + "-egress";
    private final String inet = "nxt-" + id + "-inet";
    private final List<Process> servers = new ArrayList<>();

    @Override
    public Map<String, String> start() {
        try {
            ip("netns", "add", egress);
            ip("netns", "add", inet);
            String egressLink = "nx" + id + "e";
            String inetLink = "nx" + id + "i";
            ip("link", "add", egressLink, "netns", egress, "type", "veth", "peer", "name", inetLink, "netns", inet);
            ip("-n", egress, "addr", "add", EGRESS_SIDE + "/24", "dev", egressLink);
            ip("-n", egress, "link", "set", egressLink, "up");
            ip("-n", egress, "link", "set", "lo", "up");
            ip("-n", egress, "route", "add", "default", "via", WEB);
            ip("-n", inet, "addr", "add", WEB + "/24", "dev", inetLink);
            for (String address : List.of(ALLOWED_PRIVATE, PRIVATE, METADATA)) {
                ip("-n", inet, "addr", "add", address + "/32", "dev", "lo");
            }
            ip("-n", inet, "link", "set", inetLink, "up");
            ip("-n", inet, "link", "set", "lo", "up");
            ip("-n", inet, "route", "add", "default", "via", EGRESS_SIDE);
            Path script = Files.createTempFile("internet", ".py");
            try (var in = TestInternet.class.getResourceAsStream("/net/internet.py")) {
                Files.write(script, in.readAllBytes());
            }
            serve(inet, script, "inet", WEB);
            serve(egress, script, "egress");
            return Map.of("nixexec-test.internet.egress", egress,
                    "nixexec.sandbox.network-egress-namespace", "/run/netns/" + egress,
                    "nixexec.sandbox.network-dns", WEB,
                    "nixexec.sandbox.network-allowed-ranges", "10.9.9.0/24");
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException(e);
        }
    }

    private void serve(String namespace, Path script, String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "python3", script.toString()));
        argv.addAll(List.of(args));
        Process server = new ProcessBuilder(argv).redirectErrorStream(true).start();
        servers.add(server);
        String first = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (!"ready".equals(first)) {
            throw new IOException("the test internet's server in " + namespace + " did not start: " + first);
        }
    }

    @Override
    public void stop() {
        servers.forEach(Process::destroyForcibly);
        for (Process server : servers) {
            try {
                server.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // the veth pair goes with its namespaces
        for (String namespace : List.of(egress, inet)) {
            try {
                ip("netns", "del", namespace);
            } catch (IOException e) {
                // made only partly: nothing more to remove
            }
        }
    }

    private static void ip(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("ip"));
        argv.addAll(List.of(args));
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (process.waitFor() != 0) {
                throw new IOException(String.join(" ", argv) + ": " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}

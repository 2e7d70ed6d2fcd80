package dev.nixexec.sandbox;

import dev.nixexec.config.ExecutableLookup;
import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Gives a networked run a network of its own. bubblewrap makes every run a new, empty network
 * namespace; for a run with network, slirp4netns (outside the sandbox, as the service) then puts a
 * TAP device there and relays the run's TCP and UDP flows, and DNS to its resolver at 10.0.2.3, as
 * ordinary sockets of the node, from {@code network-egress-namespace} if one is set. The node's
 * loopback is not offered ({@code --disable-host-loopback}), the node's Unix sockets live in its
 * own namespace, and {@link RunRoutes} refuses what is not the internet. All of it is done while
 * bubblewrap sets the sandbox up and waits at the run's gate, before any of the run's code exists.
 */
@ApplicationScoped
public class UserModeNetwork {

    private static final Duration READY_WAIT = Duration.ofSeconds(10);

    private final Optional<Path> slirp4netns;
    private final Optional<Path> nsenter;
    private final Optional<Path> unshare;
    private final Optional<Path> ip;
    private final String slirp4netnsName;
    private final List<Ipv4Range> allowed;
    private final Optional<Path> egress;
    /** The service is root (and runs switch uid): it may enter the runs' namespaces. */
    private final boolean root;

    public UserModeNetwork(NixExecConfig config, HostUids uids) {
        this.slirp4netnsName = config.executor().slirp4netnsCommand();
        this.slirp4netns = ExecutableLookup.find(slirp4netnsName);
        this.nsenter = ExecutableLookup.find("nsenter");
        this.unshare = ExecutableLookup.find("unshare");
        this.ip = ExecutableLookup.find("ip");
        NixExecConfig.Sandbox sandbox = config.sandbox();
        List<Ipv4Range> ranges = new ArrayList<>();
        sandbox.networkAllowedRanges().orElse(List.of()).forEach(r -> ranges.add(setting("network-allowed-ranges", r)));
        // a name server the operator set is reachable, wherever it is
        sandbox.networkDns().forEach(d -> {
            Ipv4Range server = setting("network-dns", d);
            if (server.prefixLength() != 32) {
                throw new IllegalArgumentException("nixexec.sandbox.network-dns: '" + d + "' is not one IPv4 address");
            }
            if (!new Ipv4Range(0x0a000200, 24).covers(server)) {
                ranges.add(server);
            }
        });
        this.allowed = List.copyOf(ranges);
        this.egress = sandbox.networkEgressNamespace();
        this.root = uids.switching();
    }

    private static Ipv4Range setting(String name, String value) {
        try {
            return Ipv4Range.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("nixexec.sandbox." + name + ": " + e.getMessage(), e);
        }
    }

    /** Why networked runs cannot start here, if they cannot. */
    public Optional<String> unavailableReason() {
        if (!root) {
            // The run's network namespace belongs to a user namespace that bubblewrap nests
            // (--disable-userns): only root can enter it from outside.
            return Optional.of("runs with network need the service to run as root, which gives each run a "
                    + "network namespace of its own; as another user no run gets the network");
        }
        if (slirp4netns.isEmpty()) {
            return Optional.of("runs with network need slirp4netns (" + slirp4netnsName
                    + "), which is not installed or not on PATH (on Debian: apt-get install slirp4netns)");
        }
        if (nsenter.isEmpty() || unshare.isEmpty() || ip.isEmpty()) {
            return Optional.of("runs with network need nsenter and unshare (util-linux) and ip (iproute2) on PATH");
        }
        if (egress.isPresent() && !Files.exists(egress.get())) {
            return Optional.of("nixexec.sandbox.network-egress-namespace " + egress.get() + " does not exist");
        }
        return Optional.empty();
    }

    /** The run's network, up: closing it ends its relay. */
    public static final class Attached implements AutoCloseable {
        private final Process relay;

        private Attached(Process relay) {
            this.relay = relay;
        }

        @Override
        public void close() {
            // its exit fd is its stdin: closing it ends the relay cleanly. Its exit is awaited off the
            // run's path (the result does not wait for it); a relay that lingers is killed.
            try {
                relay.getOutputStream().close();
            } catch (IOException e) {
                // closed already
            }
            Thread.ofVirtual().name("network-relay-end").start(() -> {
                try {
                    if (!relay.waitFor(1, java.util.concurrent.TimeUnit.SECONDS)) {
                        relay.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    relay.destroyForcibly();
                }
            });
        }
    }

    /**
     * Brings up the network of the run whose bubblewrap has pid {@code bwrapPid} and is held at its
     * gate: waits for the sandbox's namespace and holds it, starts its relay, waits until the relay
     * made the TAP device, then configures it and sets the routes. {@code log} takes the relay's own
     * messages.
     */
    Attached attach(long bwrapPid, Path log, BooleanSupplier launcherAlive) throws IOException {
        String reason = unavailableReason().orElse(null);
        if (reason != null) {
            throw new SandboxException(reason);
        }
        long deadline = System.nanoTime() + READY_WAIT.toNanos();
        long sandboxPid = awaitSandbox(bwrapPid, deadline, launcherAlive);
        try (HeldNetNamespace netns = HeldNetNamespace.open(sandboxPid,
                () -> childrenOf(bwrapPid).contains(sandboxPid) && launcherAlive.getAsBoolean())) {
            // slirp4netns's --enable-sandbox pivots into a new root and detaches the old one; where the
            // node's mounts are shared (systemd's default, /run/netns), that unmount propagated back and
            // took the node's `ip netns` mounts with it. A private mount namespace of its own keeps it in.
            List<String> argv = new ArrayList<>(List.of(unshare.orElseThrow().toString(), "--mount", "--propagation",
                    "private", "--"));
            egress.ifPresent(e -> argv.addAll(List.of(nsenter.orElseThrow().toString(), "--net=" + e, "--")));
            // no --configure: it brings the namespace's loopback up, and bubblewrap, still setting the
            // sandbox up, then fails to give loopback its address (it exists already); the TAP device
            // is configured with the routes instead
            argv.addAll(List.of(slirp4netns.orElseThrow().toString(), "--mtu=" + RunRoutes.MTU,
                    "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp", "--exit-fd=0"));
            // by path: given a pid, slirp4netns would first join that process's user namespace, which
            // --disable-userns made a nested one without rights over the run's network namespace
            argv.addAll(List.of("--netns-type=path", netns.path().toString(), RunRoutes.TAP));
            ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().clear();
            Process relay = builder.start();
            Attached attached = new Attached(relay);
            try {
                Path devices = Path.of("/proc", Long.toString(sandboxPid), "net", "dev");
                await(deadline, () -> hasTap(devices), () -> relay.isAlive() && launcherAlive.getAsBoolean(),
                        () -> launcherAlive.getAsBoolean() ? "the network relay did not start: " + tail(log)
                                : "the sandbox ended before its network was set up");
                configure(netns.path());
                return attached;
            } catch (IOException | RuntimeException e) {
                attached.close();
                throw e;
            }
        }
    }

    /** The first process in the sandbox's namespaces: bubblewrap's child, in a network namespace not ours. */
    private static long awaitSandbox(long bwrapPid, long deadline, BooleanSupplier launcherAlive) throws IOException {
        long[] found = new long[1];
        await(deadline, () -> {
            try {
                List<Long> children = childrenOf(bwrapPid);
                if (children.isEmpty()) {
                    return false;
                }
                long child = children.get(0);
                Path childNet = Path.of("/proc", Long.toString(child), "ns", "net");
                if (Files.readSymbolicLink(childNet).equals(Files.readSymbolicLink(Path.of("/proc/self/ns/net")))) {
                    return false;
                }
                found[0] = child;
                return true;
            } catch (IOException e) {
                return false;
            }
        }, launcherAlive, () -> "the sandbox did not start");
        return found[0];
    }

    private static List<Long> childrenOf(long pid) {
        Path children = Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children");
        try {
            String list = Files.readString(children).strip();
            return list.isEmpty() ? List.of() : java.util.Arrays.stream(list.split(" ")).map(Long::parseLong).toList();
        } catch (IOException | NumberFormatException e) {
            return List.of();
        }
    }

    private static boolean hasTap(Path devices) {
        try {
            return Files.readString(devices).contains(RunRoutes.TAP + ":");
        } catch (IOException e) {
            return false;
        }
    }

    private void configure(Path netns) throws IOException {
        List<String> argv = List.of(nsenter.orElseThrow().toString(), "--net=" + netns, "--", ip.orElseThrow().toString(),
                "-batch", "-");
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        Process process = builder.start();
        try (OutputStream in = process.getOutputStream()) {
            in.write((String.join("\n", RunRoutes.ipBatch(allowed, nodeAddresses())) + "\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (!process.waitFor(READY_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new SandboxException("configuring the run's network did not finish");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted while configuring the run's network");
        }
        if (process.exitValue() != 0) {
            throw new SandboxException("configuring the run's network failed: " + output);
        }
    }

    /** The node's own IPv4 addresses, loopback aside: read at each run, since they may change. */
    private static List<Ipv4Range> nodeAddresses() throws SocketException {
        List<Ipv4Range> own = new ArrayList<>();
        for (var nic : NetworkInterface.networkInterfaces().toList()) {
            nic.inetAddresses().filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
                    .forEach(a -> own.add(Ipv4Range.host(a.getAddress())));
        }
        return own;
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log).strip();
            return text.length() > 400 ? text.substring(text.length() - 400) : text;
        } catch (IOException e) {
            return "(no output)";
        }
    }

    private static void await(long deadline, BooleanSupplier done, BooleanSupplier alive,
            java.util.function.Supplier<String> failure) throws SandboxException {
        while (!done.getAsBoolean()) {
            if (!alive.getAsBoolean() || System.nanoTime() > deadline) {
                throw new SandboxException(failure.get());
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted while starting the run's network");
            }
        }
    }
}

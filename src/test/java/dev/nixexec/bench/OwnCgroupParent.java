package dev.nixexec.bench;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Gives the service a per-run cgroup parent of this JVM's own (cgroup v1 with cpuacct), so that the
 * parent's {@code cpuacct.usage}, which keeps what its removed children used, is the CPU of this
 * service's runs only: the default parent on the cpuacct hierarchy is shared by every service on
 * the host that runs as root. Without cgroup v1's memory and cpuacct controllers, nothing changes.
 */
public class OwnCgroupParent implements QuarkusTestResourceLifecycleManager {

    /**
     * The parent in each hierarchy the service makes it in (memory, pids, cpuacct), and this JVM's
     * own cgroup on the cpuacct hierarchy.
     */
    record Parents(Path memory, Optional<Path> pids, Path cpuacct, Path ownCpuacct) {
        List<Path> all() {
            return pids.map(p -> List.of(memory, p, cpuacct)).orElse(List.of(memory, cpuacct));
        }
    }

    /** This JVM's parents, where the legacy hierarchy has memory and cpuacct. */
    static Optional<Parents> parents() {
        try {
            Map<String, Path> mounts = new HashMap<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] halves = line.split(" - ");
                String[] right = halves.length == 2 ? halves[1].split(" ") : new String[0];
                if (right.length > 2 && right[0].equals("cgroup")) {
                    for (String option : right[2].split(",")) {
                        mounts.put(option, Path.of(halves[0].split(" ")[4]));
                    }
                }
            }
            if (!mounts.containsKey("memory") || !mounts.containsKey("cpuacct")) {
                return Optional.empty();
            }
            Map<String, String> own = new HashMap<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] parts = line.split(":", 3);
                for (String controller : parts.length == 3 ? parts[1].split(",") : new String[0]) {
                    own.put(controller, parts[2].replaceFirst("^/", ""));
                }
            }
            // as the service resolves a configured parent: the memory path, its last name in the others
            String name = "nixexec-bench-" + ProcessHandle.current().pid();
            return Optional.of(new Parents(mounts.get("memory").resolve(own.getOrDefault("memory", "")).resolve(name),
                    Optional.ofNullable(mounts.get("pids")).map(p -> p.resolve(name)), mounts.get("cpuacct").resolve(name),
                    mounts.get("cpuacct").resolve(own.getOrDefault("cpuacct", ""))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, String> start() {
        return parents().map(p -> Map.of("nixexec.sandbox.cgroup-parent", p.memory().toString())).orElse(Map.of());
    }

    /** Removes the parents once the service, which empties them at its stop, stopped. */
    @Override
    public void stop() {
        parents().ifPresent(parents -> parents.all().forEach(OwnCgroupParent::remove));
    }

    /**
     * Removes a cgroup once it is empty, which may take a moment after its last process exited;
     * says so on stderr if it stays.
     */
    static void remove(Path cgroup) {
        for (int attempt = 0; ; attempt++) {
            try {
                Files.deleteIfExists(cgroup);
                return;
            } catch (IOException busy) {
                if (attempt == 50) {
                    System.err.println("cannot remove cgroup " + cgroup + ": " + busy.getMessage());
                    return;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}

package dev.nixexec.sandbox;

import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Makes a cgroup per run for memory and process limits, and to measure what the run used (CPU
 * time, peak memory). Works on the legacy hierarchy (memory and pids controllers, and cpuacct for
 * CPU time when it is mounted, as root) and on the unified one where the service was delegated a subtree
 * (systemd {@code Delegate=yes}); when neither can be written, runs fall back to rlimits only.
 */
@ApplicationScoped
public class Cgroups {

    private static final Logger LOG = Logger.getLogger(Cgroups.class);

    /** Where per-run cgroups go, or empty when cgroups cannot be used. */
    private sealed interface Layout {
        /** {@code pidsParent} and {@code cpuacctParent} null where that controller is missing. */
        record Legacy(Path memoryParent, Path pidsParent, Path cpuacctParent) implements Layout {
        }

        record Unified(Path parent) implements Layout {
        }
    }

    private final Optional<Layout> layout;
    /** Why there is no layout; for the operator's log. */
    private String missing = "not detected";

    public Cgroups(NixExecConfig config) {
        this.layout = detect(config.sandbox().cgroupParent());
        LOG.infof("sandbox cgroups: %s", describe());
    }

    /** Where runs' cgroups go, or why there are none: host paths, for the log only. */
    public String describe() {
        return layout.map(l -> switch (l) {
            case Layout.Legacy legacy -> "cgroup v1 under " + legacy.memoryParent()
                    + (legacy.pidsParent() == null ? " (no pids controller)" : " and " + legacy.pidsParent())
                    + (legacy.cpuacctParent() == null ? " (no cpuacct controller: CPU time unmeasured)"
                            : " and " + legacy.cpuacctParent());
            case Layout.Unified unified -> "cgroup v2 under " + unified.parent();
        }).orElse("unavailable: " + missing);
    }

    public boolean available() {
        return layout.isPresent();
    }

    /** Whether a run's cgroup also bounds its processes (the legacy hierarchy may lack a pids controller). */
    public boolean limitsProcesses() {
        return layout.map(l -> !(l instanceof Layout.Legacy legacy && legacy.pidsParent() == null)).orElse(false);
    }

    /** A fresh cgroup with the limits set, or empty when cgroups are unavailable. */
    public Optional<JobCgroup> create(String name, long memoryBytes, int maxProcesses) throws IOException {
        if (layout.isEmpty()) {
            return Optional.empty();
        }
        switch (layout.get()) {
            case Layout.Legacy legacy -> {
                Path memory = Files.createDirectory(legacy.memoryParent().resolve(name));
                Path memsw = memory.resolve("memory.memsw.limit_in_bytes");
                CgroupFiles.write(memory.resolve("memory.limit_in_bytes"), Long.toString(memoryBytes));
                if (Files.exists(memsw)) {
                    CgroupFiles.write(memsw, Long.toString(memoryBytes));
                }
                Path pids = null;
                if (legacy.pidsParent() != null) {
                    pids = Files.createDirectory(legacy.pidsParent().resolve(name));
                    CgroupFiles.write(pids.resolve("pids.max"), Integer.toString(maxProcesses));
                }
                Path cpuacct = legacy.cpuacctParent() == null ? null
                        : Files.createDirectory(legacy.cpuacctParent().resolve(name));
                return Optional.of(new JobCgroup.V1(memory, pids, cpuacct));
            }
            case Layout.Unified unified -> {
                Path dir = Files.createDirectory(unified.parent().resolve(name));
                CgroupFiles.write(dir.resolve("memory.max"), Long.toString(memoryBytes));
                if (Files.exists(dir.resolve("memory.swap.max"))) {
                    CgroupFiles.write(dir.resolve("memory.swap.max"), "0");
                }
                CgroupFiles.write(dir.resolve("pids.max"), Integer.toString(maxProcesses));
                return Optional.of(new JobCgroup.V2(dir));
            }
        }
    }

    private Optional<Layout> detect(Optional<String> configuredParent) {
        try {
            Map<String, Path> v1Mounts = new HashMap<>();
            Path v2Mount = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] halves = line.split(" - ");
                if (halves.length != 2) {
                    continue;
                }
                String[] left = halves[0].split(" ");
                String[] right = halves[1].split(" ");
                Path mountPoint = Path.of(left[4]);
                if (right[0].equals("cgroup2")) {
                    v2Mount = mountPoint;
                } else if (right[0].equals("cgroup") && right.length > 2) {
                    for (String option : right[2].split(",")) {
                        if (option.equals("memory") || option.equals("pids") || option.equals("cpuacct")) {
                            v1Mounts.put(option, mountPoint);
                        }
                    }
                }
            }
            Map<String, String> own = ownCgroups();
            // A parent outside the cgroup filesystem would be a plain directory: its "limits" plain files.
            Path hierarchy = v1Mounts.containsKey("memory") ? v1Mounts.get("memory") : v2Mount;
            if (configuredParent.isPresent()
                    && (hierarchy == null || !Path.of(configuredParent.get()).normalize().startsWith(hierarchy))) {
                missing = "nixexec.sandbox.cgroup-parent " + configuredParent.get() + " is not in the cgroup "
                        + (hierarchy == null ? "filesystem (none is mounted)" : "hierarchy at " + hierarchy);
                return Optional.empty();
            }
            if (v1Mounts.containsKey("memory")) {
                Path memoryParent = configuredParent.map(Path::of)
                        .orElse(under(v1Mounts.get("memory"), own.get("memory")).resolve("nix-exec"));
                Path pidsParent = v1Mounts.containsKey("pids")
                        ? configuredParent.map(p -> v1Mounts.get("pids").resolve(Path.of(p).getFileName()))
                                .orElse(under(v1Mounts.get("pids"), own.get("pids")).resolve("nix-exec"))
                        : null;
                Path cpuacctParent = v1Mounts.containsKey("cpuacct")
                        ? configuredParent.map(p -> v1Mounts.get("cpuacct").resolve(Path.of(p).getFileName()))
                                .orElse(under(v1Mounts.get("cpuacct"), own.get("cpuacct")).resolve("nix-exec"))
                        : null;
                if (usable(memoryParent) && (pidsParent == null || usable(pidsParent))) {
                    // CPU time is only measured, never a limit here (RLIMIT_CPU is): a run goes on without it
                    return Optional.of(new Layout.Legacy(memoryParent, pidsParent,
                            cpuacctParent != null && usable(cpuacctParent) ? cpuacctParent : null));
                }
                missing = "cannot make cgroups under " + memoryParent + (pidsParent == null ? "" : " and " + pidsParent);
                return Optional.empty();
            }
            if (v2Mount != null) {
                Optional<Layout> unified = unified(v2Mount, own.get(""), configuredParent);
                if (unified.isEmpty()) {
                    missing = "no delegated cgroup v2 subtree with the memory and pids controllers (systemd Delegate=yes)";
                }
                return unified;
            }
            missing = "no cgroup filesystem with a memory controller is mounted";
        } catch (IOException | RuntimeException e) {
            missing = "cannot inspect cgroups: " + e.getMessage();
        }
        return Optional.empty();
    }

    /**
     * Unified hierarchy: a cgroup with processes cannot enable controllers for its children, so the
     * service moves itself into a {@code service} leaf of its own (delegated) cgroup first.
     */
    private static Optional<Layout> unified(Path mount, String ownPath, Optional<String> configuredParent)
            throws IOException {
        if (configuredParent.isPresent()) {
            Path parent = Path.of(configuredParent.get());
            return enableControllers(parent) ? Optional.of(new Layout.Unified(parent)) : Optional.empty();
        }
        if (ownPath == null) {
            return Optional.empty();
        }
        Path own = under(mount, ownPath);
        String controllers = Files.readString(own.resolve("cgroup.controllers"));
        if (!controllers.contains("memory") || !controllers.contains("pids") || !Files.isWritable(own.resolve("cgroup.procs"))) {
            return Optional.empty();
        }
        Path service = own.resolve("service");
        Files.createDirectories(service);
        for (String pid : Files.readAllLines(own.resolve("cgroup.procs"))) {
            if (!pid.isBlank()) {
                CgroupFiles.write(service.resolve("cgroup.procs"), pid.trim());
            }
        }
        Path jobs = own.resolve("jobs");
        if (!enableControllers(own)) {
            return Optional.empty();
        }
        Files.createDirectories(jobs);
        return enableControllers(jobs) ? Optional.of(new Layout.Unified(jobs)) : Optional.empty();
    }

    private static boolean enableControllers(Path dir) {
        try {
            Files.createDirectories(dir);
            CgroupFiles.write(dir.resolve("cgroup.subtree_control"), "+memory +pids");
            return true;
        } catch (IOException e) {
            LOG.warnf("cannot enable memory and pids controllers in %s: %s", dir, e.getMessage());
            return false;
        }
    }

    private static boolean usable(Path parent) {
        try {
            Files.createDirectories(parent);
            return Files.isWritable(parent);
        } catch (IOException e) {
            return false;
        }
    }

    private static Path under(Path mount, String cgroupPath) {
        String relative = cgroupPath == null ? "" : cgroupPath.replaceFirst("^/", "");
        return relative.isEmpty() ? mount : mount.resolve(relative);
    }

    /** Controller (or "" for the unified hierarchy) to this process's cgroup path. */
    private static Map<String, String> ownCgroups() throws IOException {
        Map<String, String> own = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            String[] parts = line.split(":", 3);
            if (parts.length == 3) {
                for (String controller : parts[1].split(",")) {
                    own.put(controller, parts[2]);
                }
            }
        }
        return own;
    }
}

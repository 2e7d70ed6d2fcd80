package dev.nixexec.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The cgroup(s) of one run: the files a process writes its pid to, and what happened inside. */
public sealed interface JobCgroup {

    /** {@code cgroup.procs} files the launcher joins before it execs the sandbox. */
    List<Path> procsFiles();

    /** The limit the kernel enforced, if any: {@code memory} or {@code processes}. */
    Optional<LimitHit> limitHit();

    /** CPU time its processes used so far, in nanoseconds, if this cgroup counts it. */
    Optional<Long> cpuNanos();

    /** The most memory it held at once, in bytes, if this cgroup keeps that. */
    Optional<Long> peakMemoryBytes();

    /** What the run used: CPU since {@code cpuNanosAtStart} (a reading of {@link #cpuNanos} when its code started) and peak memory. */
    default ResourceUsage usage(Optional<Long> cpuNanosAtStart) {
        Optional<Long> cpuMs = cpuNanos().map(now -> Math.max(0, now - cpuNanosAtStart.orElse(0L)) / 1_000_000);
        return new ResourceUsage(cpuMs, peakMemoryBytes());
    }

    /** Kills every process still in the cgroup. */
    void killAll();

    /** Removes the cgroup, killing what is left in it; true once it is gone, so no process of it lives. */
    boolean remove();

    /**
     * Legacy hierarchy: one directory per controller; {@code pids} and {@code cpuacct} are null
     * where that controller is not mounted (or not writable).
     */
    record V1(Path memory, Path pids, Path cpuacct) implements JobCgroup {
        @Override
        public List<Path> procsFiles() {
            return java.util.stream.Stream.of(memory, pids, cpuacct).filter(java.util.Objects::nonNull)
                    .map(dir -> dir.resolve("cgroup.procs")).toList();
        }

        @Override
        public Optional<Long> cpuNanos() {
            return cpuacct == null ? Optional.empty() : CgroupFiles.value(cpuacct.resolve("cpuacct.usage"));
        }

        @Override
        public Optional<Long> peakMemoryBytes() {
            return CgroupFiles.value(memory.resolve("memory.max_usage_in_bytes"));
        }

        @Override
        public Optional<LimitHit> limitHit() {
            if (CgroupFiles.counter(memory.resolve("memory.oom_control"), "oom_kill") > 0
                    || CgroupFiles.counter(memory.resolve("memory.events"), "oom_kill") > 0) {
                return Optional.of(LimitHit.MEMORY);
            }
            if (pids != null && CgroupFiles.counter(pids.resolve("pids.events"), "max") > 0) {
                return Optional.of(LimitHit.PROCESSES);
            }
            return Optional.empty();
        }

        @Override
        public void killAll() {
            CgroupFiles.killListed(memory.resolve("cgroup.procs"));
            if (pids != null) {
                CgroupFiles.killListed(pids.resolve("cgroup.procs"));
            }
        }

        @Override
        public boolean remove() {
            // every process of the run is in the memory cgroup: it joined before anything else ran
            boolean gone = CgroupFiles.removeDir(memory);
            if (pids != null) {
                gone &= CgroupFiles.removeDir(pids);
            }
            if (cpuacct != null) {
                CgroupFiles.removeDir(cpuacct);
            }
            return gone;
        }
    }

    /** Unified hierarchy: one directory with both controllers. */
    record V2(Path dir) implements JobCgroup {
        @Override
        public List<Path> procsFiles() {
            return List.of(dir.resolve("cgroup.procs"));
        }

        /** {@code usage_usec} of cpu.stat, which every cgroup has, the cpu controller enabled or not. */
        @Override
        public Optional<Long> cpuNanos() {
            return CgroupFiles.keyed(dir.resolve("cpu.stat"), "usage_usec").map(usec -> usec * 1000);
        }

        /** memory.peak: Linux 5.19 and later. */
        @Override
        public Optional<Long> peakMemoryBytes() {
            return CgroupFiles.value(dir.resolve("memory.peak"));
        }

        @Override
        public Optional<LimitHit> limitHit() {
            if (CgroupFiles.counter(dir.resolve("memory.events"), "oom_kill") > 0) {
                return Optional.of(LimitHit.MEMORY);
            }
            if (CgroupFiles.counter(dir.resolve("pids.events"), "max") > 0) {
                return Optional.of(LimitHit.PROCESSES);
            }
            return Optional.empty();
        }

        @Override
        public void killAll() {
            Path kill = dir.resolve("cgroup.kill");
            if (Files.exists(kill)) {
                try {
                    Files.writeString(kill, "1");
                    return;
                } catch (IOException ignored) {
                    // fall back to killing pid by pid
                }
            }
            CgroupFiles.killListed(dir.resolve("cgroup.procs"));
        }

        @Override
        public boolean remove() {
            return CgroupFiles.removeDir(dir);
        }
    }
}

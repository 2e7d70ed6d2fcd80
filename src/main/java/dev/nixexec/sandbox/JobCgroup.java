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
    Optional<String> limitHit();

    /** Kills every process still in the cgroup. */
    void killAll();

    /** Removes the cgroup; every process must be gone. */
    void remove();

    /** Legacy hierarchy: one directory per controller. */
    record V1(Path memory, Path pids) implements JobCgroup {
        @Override
        public List<Path> procsFiles() {
            return pids == null ? List.of(memory.resolve("cgroup.procs"))
                    : List.of(memory.resolve("cgroup.procs"), pids.resolve("cgroup.procs"));
        }

        @Override
        public Optional<String> limitHit() {
            if (CgroupFiles.counter(memory.resolve("memory.oom_control"), "oom_kill") > 0
                    || CgroupFiles.counter(memory.resolve("memory.events"), "oom_kill") > 0) {
                return Optional.of("memory");
            }
            if (pids != null && CgroupFiles.counter(pids.resolve("pids.events"), "max") > 0) {
                return Optional.of("processes");
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
        public void remove() {
            CgroupFiles.removeDir(memory);
            if (pids != null) {
                CgroupFiles.removeDir(pids);
            }
        }
    }

    /** Unified hierarchy: one directory with both controllers. */
    record V2(Path dir) implements JobCgroup {
        @Override
        public List<Path> procsFiles() {
            return List.of(dir.resolve("cgroup.procs"));
        }

        @Override
        public Optional<String> limitHit() {
            if (CgroupFiles.counter(dir.resolve("memory.events"), "oom_kill") > 0) {
                return Optional.of("memory");
            }
            if (CgroupFiles.counter(dir.resolve("pids.events"), "max") > 0) {
                return Optional.of("processes");
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
        public void remove() {
            CgroupFiles.removeDir(dir);
        }
    }
}

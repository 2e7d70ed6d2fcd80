package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A sandbox entry started ahead of its run: it already sits in its cgroup, under its rlimits and
 * host uid, holding its gate open, blocked reading its first line of input. The run writes the
 * bubblewrap options and command into {@code runDir}, then the CPU limit line, and the launcher execs
 * bubblewrap, which sets up the sandbox and waits at the gate for the seccomp program.
 */
record Launcher(LauncherKey key, Process process, OptionalInt uid, Optional<JobCgroup> cgroup, Path runDir, Path etcDir) {

    /** Where the run is written before the launcher goes on. */
    LauncherFiles files() {
        return new LauncherFiles(runDir, etcDir, uid);
    }

    Path gateFile() {
        return runDir.resolve("gate");
    }
}

package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.OptionalInt;

/** A launcher's run directory, for writing a run into it before the launcher starts; the runs' shared /etc files; and the run's uid. */
record LauncherFiles(Path runDir, Path etcDir, OptionalInt uid) {

    Path codeDir() {
        return runDir.resolve("code");
    }

    Path optionsFile() {
        return runDir.resolve("options");
    }

    Path commandFile() {
        return runDir.resolve("command");
    }

    Path limitsFile() {
        return runDir.resolve(LauncherPool.TERMINAL_LIMITS);
    }
}

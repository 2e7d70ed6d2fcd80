package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.OptionalInt;

/** A launcher's run directory, for writing a run into it before the launcher starts; and the run's uid. */
record LauncherFiles(Path runDir, OptionalInt uid) {

    Path codeDir() {
        return runDir.resolve("code");
    }

    Path etcDir() {
        return runDir.resolve("etc");
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

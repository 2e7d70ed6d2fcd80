package dev.nixexec.sandbox;

import java.util.Locale;

/** The limit that ended a run: a job's {@code limit_hit} (docs/api.md), its wire and column value {@link #id()}. */
public enum LimitHit {
    MEMORY, PROCESSES, CPU_TIME, FILE_SIZE, TIMEOUT,
    /** The workspace's quota (a job's materialised /workspace), found by the worker rather than the sandbox. */
    WORKSPACE;

    private final String id = name().toLowerCase(Locale.ROOT);

    public String id() {
        return id;
    }
}

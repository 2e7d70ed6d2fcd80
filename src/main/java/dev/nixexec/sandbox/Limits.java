package dev.nixexec.sandbox;

import java.time.Duration;

/**
 * Resource bounds of one run. Which mechanism enforces each is in docs/sandbox.md: the wall
 * timeout by killing the sandbox's pid namespace, memory and processes by a per-run cgroup where one
 * can be made (plus RLIMIT_NPROC on a per-run uid), CPU time and file size by rlimits, /tmp and
 * /workspace by sized tmpfs mounts, output by bounded capture.
 */
public record Limits(Duration timeout, long memoryBytes, int maxProcesses, long cpuSeconds, long maxFileBytes,
        long tmpBytes, long workspaceBytes, long maxOutputBytes) {

    public Limits {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        if (memoryBytes <= 0 || maxProcesses <= 0 || maxFileBytes <= 0 || tmpBytes <= 0 || workspaceBytes <= 0
                || maxOutputBytes <= 0) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }

    /** CPU seconds: the configured value, or the wall timeout rounded up when that is 0. */
    public long effectiveCpuSeconds() {
        return cpuSeconds > 0 ? cpuSeconds : Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    public Limits withTimeout(Duration newTimeout) {
        return new Limits(newTimeout, memoryBytes, maxProcesses, cpuSeconds, maxFileBytes, tmpBytes, workspaceBytes,
                maxOutputBytes);
    }
}

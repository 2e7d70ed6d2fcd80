package dev.nixexec.sandbox;

/** The limits a launcher is started with; runs whose limits match can take a waiting one. */
record LauncherKey(long memoryBytes, int maxProcesses, long maxFileBytes, long cpuCeilingSeconds) {

    static LauncherKey of(Limits limits, long configuredCeilingSeconds) {
        return new LauncherKey(limits.memoryBytes(), limits.maxProcesses(), limits.maxFileBytes(),
                Math.max(configuredCeilingSeconds, limits.effectiveCpuSeconds()));
    }
}

package dev.nixexec.sandbox;

import java.util.Optional;

/**
 * What a run used, as its cgroup counted it: CPU time of all its processes (user and system) in
 * milliseconds, and the cgroup's peak memory in bytes (resident pages, page cache and tmpfs pages
 * charged to the run). Empty where the sandbox cannot measure it (no per-run cgroup, macOS).
 */
public record ResourceUsage(Optional<Long> cpuMs, Optional<Long> maxRssBytes) {

    public static final ResourceUsage NONE = new ResourceUsage(Optional.empty(), Optional.empty());

    public ResourceUsage {
        cpuMs = cpuMs == null ? Optional.empty() : cpuMs;
        maxRssBytes = maxRssBytes == null ? Optional.empty() : maxRssBytes;
    }

    public boolean measured() {
        return cpuMs.isPresent() || maxRssBytes.isPresent();
    }
}

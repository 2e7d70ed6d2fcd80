package dev.nixexec.sandbox;

import java.util.Optional;

/**
 * How a run ended. {@code exitCode} is what bubblewrap reports (128+N when the code was killed by
 * signal N, as shells report it); {@code limitHit} names the limit that ended it, if one did;
 * {@code usage} is what the run's cgroup counted ({@link ResourceUsage#NONE} without one).
 */
public record SandboxResult(int exitCode, Optional<Integer> signal, boolean timedOut, Optional<LimitHit> limitHit,
        long durationMs, OutputCapture.Captured stdout, OutputCapture.Captured stderr, ResourceUsage usage) {
}

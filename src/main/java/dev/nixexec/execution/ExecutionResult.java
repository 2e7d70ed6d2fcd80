package dev.nixexec.execution;

import dev.nixexec.sandbox.LimitHit;
import dev.nixexec.sandbox.OutputCapture;
import dev.nixexec.sandbox.ResourceUsage;
import java.util.Optional;

/**
 * How an execution ended. {@code status} is {@code succeeded}, {@code failed} (non-zero exit),
 * {@code timed_out} or {@code error} (the platform could not run it; see {@code error}). {@code usage}
 * is what the sandbox measured of the run ({@link ResourceUsage#NONE} when it did not run or could not measure).
 */
public record ExecutionResult(String status, Optional<Integer> exitCode, Optional<Integer> signal, boolean timedOut,
        Optional<LimitHit> limitHit, long durationMs, OutputCapture.Captured stdout, OutputCapture.Captured stderr,
        Optional<EnvironmentInfo> environment, Optional<ErrorInfo> error, ResourceUsage usage) {

    /** Where the code ran: the environment's store path and how it was had. */
    public record EnvironmentInfo(String storePath, String nixpkgsRevision, boolean cacheHit, long buildMs) {
    }

    /** Machine-readable code and a one-line message. */
    public record ErrorInfo(String code, String message) {
    }

    static ExecutionResult error(String code, String message, Optional<EnvironmentInfo> environment) {
        return new ExecutionResult("error", Optional.empty(), Optional.empty(), false, Optional.empty(), 0,
                OutputCapture.Captured.empty(), OutputCapture.Captured.empty(), environment,
                Optional.of(new ErrorInfo(code, message)), ResourceUsage.NONE);
    }
}

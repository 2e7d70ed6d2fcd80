package dev.nixexec.job;

import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.sandbox.LimitHit;
import dev.nixexec.sandbox.OutputCapture.Captured;

/**
 * How a run ended, in the job's terms: what {@link JobTransitions#finish} stores; {@code usage} null
 * when the sandbox measured nothing. Made by the factories, one for each way a run ends.
 */
public record Outcome(JobStatus status, Integer exitCode, Integer signal, boolean timedOut, LimitHit limitHit,
        Long durationMs, String stdout, String stderr, long stdoutBytes, long stderrBytes, boolean stdoutTruncated,
        boolean stderrTruncated, String errorCode, String errorMessage, JobView.Usage usage) {

    public Outcome {
        stdout = JobTransitions.storable(stdout);
        stderr = JobTransitions.storable(stderr);
        errorMessage = JobTransitions.storable(errorMessage);
    }

    /** The engine's result: the code's own end, or the platform's error before it ran (no duration then). */
    public static Outcome of(ExecutionResult r) {
        Captured out = r.stdout();
        Captured err = r.stderr();
        JobStatus status = JobStatus.byId(r.status()).orElseThrow();
        return new Outcome(status, r.exitCode().orElse(null), r.signal().orElse(null), r.timedOut(),
                r.limitHit().orElse(null), status == JobStatus.ERROR ? null : r.durationMs(), out.text(), err.text(),
                out.totalBytes(), err.totalBytes(), out.truncated(), err.truncated(),
                r.error().map(ExecutionResult.ErrorInfo::code).orElse(null),
                r.error().map(ExecutionResult.ErrorInfo::message).orElse(null),
                r.usage().measured() ? new JobView.Usage(r.usage().cpuMs().orElse(null),
                        r.usage().maxRssBytes().orElse(null)) : null);
    }

    /** An {@code error} of the platform's with nothing of a run kept: refused before its code ran, or the engine failed. */
    public static Outcome error(String code, String message) {
        return new Outcome(JobStatus.ERROR, null, null, false, null, null, "", "", 0, 0, false, false, code, message,
                null);
    }

    /** Cancelled by its tenant, with the output so far. */
    public static Outcome cancelled(Captured out, Captured err) {
        return stopped(JobStatus.CANCELLED, null, out, err, null, null);
    }

    /** Stopped by its node shutting down, with the output so far. */
    public static Outcome shutDown(Captured out, Captured err) {
        return stopped(JobStatus.ERROR, null, out, err, "worker_shutdown", "the node shut down while the job ran");
    }

    /** Stopped because its workspace could not be kept ({@code quota}: it outgrew its limit), with the output so far. */
    public static Outcome workspaceStopped(Captured out, Captured err, boolean quota, String code, String message) {
        return stopped(JobStatus.ERROR, quota ? LimitHit.WORKSPACE : null, out, err, code,
                message + "; the job was stopped and the workspace keeps its previous version");
    }

    private static Outcome stopped(JobStatus status, LimitHit limitHit, Captured out, Captured err, String code,
            String message) {
        return new Outcome(status, null, null, false, limitHit, null, out.text(), err.text(), out.totalBytes(),
                err.totalBytes(), out.truncated(), err.truncated(), code, message, null);
    }

    /** Whether the job's code ran to an end of its own (not stopped, never started, or refused). */
    public boolean codeRanToAnEnd() {
        return status == JobStatus.SUCCEEDED || status == JobStatus.FAILED || status == JobStatus.TIMED_OUT;
    }

    /** The same run, ended as an {@code error} of the platform's after the code ran (its output kept). */
    public Outcome asError(String code, String message) {
        return new Outcome(JobStatus.ERROR, exitCode, signal, timedOut, limitHit, durationMs, stdout, stderr,
                stdoutBytes, stderrBytes, stdoutTruncated, stderrTruncated, code, message, usage);
    }
}

package dev.nixexec.ui;

import static dev.nixexec.database.JsonColumns.write;
import static dev.nixexec.ui.UiFormat.orDash;
import static dev.nixexec.ui.UiFormat.time;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.job.JobDetail;
import dev.nixexec.job.JobView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a job's page shows, shaped from the service's {@link JobDetail} and the job's audit entries:
 * the template's parameters, already formatted. {@code audit} is null when the role may not see it.
 */
record JobPageView(String id, String status, boolean live, List<Pages.Field> summary, List<Pages.Field> environment,
        List<String> packages, List<Pages.EnvRow> env, boolean envValuesHidden, String code, String stdin,
        List<Pages.Output> outputs, List<Pages.AuditRow> audit, List<Pages.LimitRow> limits, String build,
        String sessionId) {

    /** @param audit the job's audit entries in any order, or null when the caller may not review them */
    static JobPageView of(JobDetail detail, List<AuditLog.Entry> audit, ObjectMapper json) {
        JobView job = detail.job();
        List<Pages.EnvRow> envRows = detail.envNames().stream()
                .map(name -> new Pages.EnvRow(name, detail.env().map(values -> values.get(name)).orElse(null))).toList();
        List<Pages.Output> outputs = List.of(
                output("stdout", job.stdoutText(), job.stdoutTruncated(), job.stdoutBytes()),
                output("stderr", job.stderrText(), job.stderrTruncated(), job.stderrBytes()));
        List<Pages.AuditRow> trail = audit == null ? null : audit.stream()
                .sorted(Comparator.comparingLong(AuditLog.Entry::id))
                .map(e -> new Pages.AuditRow(time(e.at()), e.kind(), orDash(e.nodeId()),
                        UiFormat.recordKey(e.key()), write(json, e.detail()))).toList();
        return new JobPageView(job.id().toString(), job.status(), !job.terminal(), summary(detail, json),
                environment(job.environment()), job.packages(), envRows, detail.env().isEmpty(), detail.code(),
                detail.stdin(), outputs, trail, limits(detail), job.build() == null ? null : UiFormat.build(job.build()),
                job.sessionId() == null ? null : job.sessionId().toString());
    }

    /**
     * Each limit the run had, what the job asked for beside what the run used: a memory kill shows
     * the memory asked for next to the peak measured. The limit that ended the run is marked.
     */
    static List<Pages.LimitRow> limits(JobDetail detail) {
        JobView job = detail.job();
        dev.nixexec.execution.RequestedLimits asked = detail.limits();
        String hit = job.limitHit();
        JobView.Usage usage = job.usage();
        String notAsked = "default";
        return List.of(
                new Pages.LimitRow("Time", UiFormat.duration(detail.timeoutMs()),
                        job.durationMs() == null ? "–" : UiFormat.duration(job.durationMs()), "timeout".equals(hit)),
                new Pages.LimitRow("Memory", asked.memory() == null ? notAsked : UiFormat.bytes(asked.memory()),
                        usage == null || usage.maxRssBytes() == null ? "–" : UiFormat.bytes(usage.maxRssBytes()) + " peak",
                        "memory".equals(hit)),
                new Pages.LimitRow("CPU time", asked.cpuSeconds() == null ? notAsked : asked.cpuSeconds() + " s",
                        usage == null || usage.cpuMs() == null ? "–" : UiFormat.duration(usage.cpuMs()),
                        "cpu_time".equals(hit)),
                new Pages.LimitRow("Processes", asked.pids() == null ? notAsked : asked.pids().toString(), "–",
                        "processes".equals(hit)),
                new Pages.LimitRow("Output per stream", asked.outputBytes() == null ? notAsked
                        : UiFormat.bytes(asked.outputBytes()), "stdout " + UiFormat.bytes(job.stdoutBytes()) + ", stderr "
                        + UiFormat.bytes(job.stderrBytes()), job.stdoutTruncated() || job.stderrTruncated()));
    }

    private static List<Pages.Field> summary(JobDetail detail, ObjectMapper json) {
        JobView job = detail.job();
        List<Pages.Field> summary = new ArrayList<>();
        summary.add(new Pages.Field("Status", job.status()));
        summary.add(new Pages.Field("Language", job.language()));
        summary.add(new Pages.Field("Submitted by", job.key() == null ? "local mode"
                : job.key().label() + " · id " + job.key().id()));
        summary.add(new Pages.Field("Node", orDash(job.nodeId())));
        summary.add(new Pages.Field("Attempt", job.attempt() + " of " + detail.maxAttempts()));
        summary.add(new Pages.Field("Created", time(job.createdAt())));
        summary.add(new Pages.Field("Claimed", time(detail.claimedAt())));
        summary.add(new Pages.Field("Started", time(job.startedAt())));
        summary.add(new Pages.Field("Finished", time(job.finishedAt())));
        summary.add(new Pages.Field("Run time", job.durationMs() == null ? "–" : UiFormat.duration(job.durationMs())));
        summary.add(new Pages.Field("Exit code", job.exitCode() == null ? "–" : job.exitCode().toString()));
        if (job.signal() != null) {
            summary.add(new Pages.Field("Signal", job.signal().toString()));
        }
        summary.add(new Pages.Field("Timed out", job.timedOut() ? "yes" : "no"));
        summary.add(new Pages.Field("Limit hit", orDash(job.limitHit())));
        summary.add(new Pages.Field("Network", detail.network() ? "full" : "none"));
        if (detail.cancelRequested()) {
            summary.add(new Pages.Field("Cancel", "requested"));
        }
        if (job.error() != null) {
            summary.add(new Pages.Field("Error", job.error().code() + ": " + job.error().message()));
        }
        if (!job.metadata().isEmpty()) {
            summary.add(new Pages.Field("Metadata", write(json, job.metadata())));
        }
        return summary;
    }

    private static List<Pages.Field> environment(JobView.EnvironmentView env) {
        return List.of(
                new Pages.Field("Store path", env == null ? "–" : orDash(env.storePath())),
                new Pages.Field("nixpkgs revision", env == null ? "–" : orDash(env.nixpkgsRevision())),
                new Pages.Field("Cache hit", env == null || env.cacheHit() == null ? "–" : env.cacheHit() ? "yes" : "no"),
                new Pages.Field("Build time", env == null || env.buildMs() == null ? "–" : UiFormat.duration(env.buildMs())));
    }

    private static Pages.Output output(String name, String text, boolean truncated, long bytes) {
        String note = truncated ? "truncated: " + bytes + " bytes were printed; the first and last parts are kept, "
                + "the gap is marked [... N bytes truncated ...]" : bytes + " bytes";
        return new Pages.Output(name, text == null ? "" : text, truncated, note);
    }
}

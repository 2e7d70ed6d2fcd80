package dev.nixexec.mcp;

import dev.nixexec.job.JobView;
import java.util.List;
import java.util.stream.Collectors;

/** Jobs as text for an agent, in the nix-exec shape ({@code Exit code: N}, stdout, stderr, marks). */
final class JobText {

    private JobText() {
    }

    static String result(JobView job) {
        if (!job.terminal()) {
            return "Job " + job.id() + " is still " + job.status()
                    + ". Call get_job with this job_id (and a wait) for the result.";
        }
        StringBuilder text = new StringBuilder();
        if (job.error() != null) {
            text.append("Error (").append(job.error().code()).append("): ").append(job.error().message()).append('\n');
        }
        if (job.exitCode() != null) {
            text.append("Exit code: ").append(job.exitCode()).append('\n');
        }
        if (job.signal() != null) {
            text.append("Signal: ").append(job.signal()).append('\n');
        }
        if (job.timedOut()) {
            text.append("[TIMED OUT]\n");
        }
        if (job.limitHit() != null) {
            text.append("[LIMIT HIT: ").append(job.limitHit()).append("]\n");
        }
        text.append("--- stdout ---\n").append(stream(job.stdout()));
        if (job.stdoutTruncated()) {
            text.append("[stdout truncated: ").append(job.stdoutBytes()).append(" bytes in all]\n");
        }
        text.append("--- stderr ---\n").append(stream(job.stderr()));
        if (job.stderrTruncated()) {
            text.append("[stderr truncated: ").append(job.stderrBytes()).append(" bytes in all]\n");
        }
        if (job.artifacts() != null && !job.artifacts().isEmpty()) {
            text.append("--- artifacts ---\n");
            job.artifacts().forEach(a -> text.append(a.name()).append(" (").append(a.contentType()).append(", ")
                    .append(a.size()).append(" bytes)\n"));
        }
        text.append("Job ").append(job.id()).append(": ").append(job.status());
        return text.toString();
    }

    /** One line per job, newest first. */
    static String list(List<JobView> jobs) {
        if (jobs.isEmpty()) {
            return "No jobs.";
        }
        return jobs.stream().map(job -> job.id() + " " + job.status() + " " + job.language() + " " + job.createdAt()
                + (job.exitCode() == null ? "" : " exit " + job.exitCode()))
                .collect(Collectors.joining("\n"));
    }

    private static String stream(String output) {
        if (output == null || output.isEmpty()) {
            return "";
        }
        return output.endsWith("\n") ? output : output + "\n";
    }
}

package dev.nixexec.mcp;

import dev.nixexec.job.JobView;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Jobs as text for an agent, in the nix-exec shape ({@code Exit code: N}, stdout, stderr, marks).
 * A job's result, and the answer for one still running, close with a {@link #SEPARATOR} line and
 * {@code Job <id>: <status>}, so that the status line never reads as the program's last line of output.
 */
final class JobText {

    static final String SEPARATOR = "---";

    private JobText() {
    }

    /** A job that has not ended: what to do, and its output so far. */
    static String running(JobView job, OutputSoFar output) {
        return "Still " + job.status() + ": call get_job with this job_id (and a wait) for the result.\n"
                + output.text() + closing(job);
    }

    static String result(JobView job) {
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
        return text.append(closing(job)).toString();
    }

    private static String closing(JobView job) {
        return SEPARATOR + "\nJob " + job.id() + ": " + job.status();
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

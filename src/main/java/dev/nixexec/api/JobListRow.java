package dev.nixexec.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.nixexec.job.JobView;

/**
 * A job as a row of {@code GET /v1/jobs}: every field of the job but {@code stdout} and
 * {@code stderr}, which come as previews of at most {@value #PREVIEW} characters (null while there
 * is no output yet); {@code stdout_bytes}, {@code stderr_bytes} and the {@code *_truncated} flags
 * are the job's own. A page of rows stays small however much the jobs printed.
 */
public record JobListRow(@JsonUnwrapped @JsonIgnoreProperties({"stdout", "stderr"}) JobView job,
        String stdoutPreview, String stderrPreview) {

    static final int PREVIEW = 200;

    static JobListRow of(JobView job) {
        return new JobListRow(job, preview(job.stdout()), preview(job.stderr()));
    }

    /** The first {@value #PREVIEW} characters, not cutting a surrogate pair in two. */
    static String preview(String text) {
        if (text == null || text.length() <= PREVIEW) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(PREVIEW - 1)) ? PREVIEW - 1 : PREVIEW;
        return text.substring(0, end);
    }
}

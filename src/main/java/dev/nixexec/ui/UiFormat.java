package dev.nixexec.ui;

import dev.nixexec.job.JobView;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How the pages write times, missing values and a job's list row. */
final class UiFormat {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'");

    private UiFormat() {
    }

    static String time(OffsetDateTime t) {
        return t == null ? "–" : TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    /** A job as a row of the job list and of the fleet page's running jobs. */
    static Pages.JobRow jobRow(JobView j) {
        return new Pages.JobRow(j.id().toString(), j.status(), j.language(), String.join(" ", j.packages()),
                time(j.createdAt()), j.durationMs() == null ? "" : j.durationMs() + " ms",
                j.exitCode() == null ? (j.error() == null ? "" : j.error().code()) : j.exitCode().toString(),
                orEmpty(j.nodeId()));
    }

    static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    static String orDash(String value) {
        return value == null ? "–" : value;
    }
}

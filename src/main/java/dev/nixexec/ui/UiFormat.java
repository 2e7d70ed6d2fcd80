package dev.nixexec.ui;

import dev.nixexec.audit.KeyRef;
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
        return jobRow(j, "/ui/jobs/" + j.id(), "");
    }

    /** A row of an operator's list across tenants: the link carries the job's tenant. */
    static Pages.JobRow jobRow(JobView j, String href, String tenant) {
        return jobRow(j, href, tenant, false);
    }

    /** A row whose job may be known as a session's environment build by the caller (a session's page). */
    static Pages.JobRow jobRow(JobView j, String href, String tenant, boolean sessionBuild) {
        return new Pages.JobRow(j.id().toString(), href, tenant, key(j.key()), j.status(), j.language(), String.join(" ", j.packages()),
                time(j.createdAt()), j.durationMs() == null ? "" : duration(j.durationMs()),
                j.exitCode() == null ? (j.error() == null ? "" : j.error().code()) : j.exitCode().toString(),
                orEmpty(j.nodeId()), sessionBuild || j.build() != null ? build(j.build()) : null);
    }

    /** What an environment build is called on the pages. */
    static String build(String kind) {
        return "environment".equals(kind) ? "environment build" : "session's environment build";
    }

    /**
     * A duration for people: "850 ms", "1.2 s", "42 s", "3 min 4 s", "2 h 5 min" (the two largest
     * units, rounded down; tenths only under ten seconds).
     */
    static String duration(long ms) {
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms < 10_000) {
            return (ms / 1000) + "." + (ms % 1000 / 100) + " s";
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return (s / 60) + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        long min = s / 60;
        return (min / 60) + " h" + (min % 60 == 0 ? "" : " " + min % 60 + " min");
    }

    /** A size for people: "512 B", "3.4 KiB", "12.0 MiB". */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        if (n < 1024 * 1024) {
            return String.format(java.util.Locale.ROOT, "%.1f KiB", n / 1024.0);
        }
        return String.format(java.util.Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }

    /** A key as people read it: "name (role)"; "local mode" where no key acted (the local operator). */
    static String key(KeyRef key) {
        return key == null ? "local mode" : key.label();
    }

    /** An audit record's key: "name (role)", or a dash for a record no key wrote (a node's). */
    static String recordKey(KeyRef key) {
        return key == null ? "–" : key.label();
    }

    static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    static String orDash(String value) {
        return value == null ? "–" : value;
    }
}

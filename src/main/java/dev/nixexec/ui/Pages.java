package dev.nixexec.ui;

import java.util.List;

/** What the audit UI's templates show, already formatted; the templates only lay it out (escaped). */
final class Pages {

    private Pages() {
    }

    /** The signed-in reviewer, shown in the header; {@code csrf} goes into every form. */
    record User(String role, String tenant, String key, String csrf, boolean reviews, boolean admin, boolean local) {
    }

    record Option(String value, String label, boolean selected) {
    }

    /** The list filter as typed, so the form shows it again. */
    record Filter(List<Option> statuses, List<Option> languages, String packageName, String key, String node,
            String since, String until, String text, String metadata, List<Option> tenants) {
    }

    /** {@code href} carries the tenant for an operator's view of another tenant's job; {@code tenant} is shown to operators. */
    record JobRow(String id, String href, String tenant, String key, String status, String language, String packages,
            String created, String duration, String exit, String node, String build) {
    }

    /** An attached shell of a session: its replay's link, who opened it, how long, how much each way, how it ended. */
    record ShellRow(String href, String started, String key, String duration, String typed, String shown, String ended,
            boolean truncated) {
    }

    /**
     * A file the job returned: {@code image} when its bytes are PNG, JPEG, GIF or WebP (shown
     * inline), {@code svg} for a drawing shown only as an {@code <img>}; every file has its download.
     */
    record ArtifactRow(String name, String size, String contentType, String href, boolean image, boolean svg) {
    }

    /**
     * An audit record that is not a job's, for the audit page, as {@link AuditEventText} words it:
     * {@code object}/{@code href} null when it names none; links carry an operator's tenant;
     * {@code detail} is the record's data (JSON) behind a disclosure.
     */
    record EventRow(String at, String tenant, String kind, String who, String what, String object, String href,
            String detail) {
    }

    record Field(String name, String value) {
    }

    /** A limit of a job's run: what was asked for ("default" when nothing was) beside what the run used; {@code hit} when it ended the run. */
    record LimitRow(String name, String asked, String used, boolean hit) {
    }

    record Output(String name, String text, boolean truncated, String note) {
    }

    record AuditRow(String at, String kind, String node, String key, String detail) {
    }

    record EnvRow(String name, String value) {
    }

    record NodeRow(String id, String role, int running, int concurrency, String heartbeat, String age, boolean stale) {
    }
}

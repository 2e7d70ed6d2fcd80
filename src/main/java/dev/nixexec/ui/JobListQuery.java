package dev.nixexec.ui;

import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobStatus;
import dev.nixexec.nix.Language;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The job list's filter as typed into its form (blank fields dropped), read three ways: the form
 * shown again, the service's filter, and the page's links, which carry the filter so that a page
 * is a bookmarkable URL.
 */
record JobListQuery(String status, String language, String packageName, String key, String node, String since,
        String until) {

    static JobListQuery typed(String status, String language, String packageName, String key, String node,
            String since, String until) {
        return new JobListQuery(blankToNull(status), blankToNull(language), blankToNull(packageName),
                blankToNull(key), blankToNull(node), blankToNull(since), blankToNull(until));
    }

    Pages.Filter form() {
        return new Pages.Filter(
                options(Arrays.stream(JobStatus.values()).map(JobStatus::id).toList(), status),
                options(Arrays.stream(Language.values()).map(Language::id).toList(), language),
                UiFormat.orEmpty(packageName), UiFormat.orEmpty(key), UiFormat.orEmpty(node),
                UiFormat.orEmpty(since), UiFormat.orEmpty(until));
    }

    /** @throws IllegalArgumentException naming the field that does not read (shown above the list) */
    JobReads.Filter filter() {
        return new JobReads.Filter(
                status == null ? null : JobStatus.byId(status).orElseThrow(() -> new IllegalArgumentException("unknown status")),
                language, time("from", since), time("to", until), packageName, key == null ? null : keyId(key), node);
    }

    /** {@code /ui/jobs} with this filter and, unless null, the cursor of the page to show. */
    String link(String cursor) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("status", status);
        params.put("language", language);
        params.put("package", packageName);
        params.put("key", key);
        params.put("node", node);
        params.put("since", since);
        params.put("until", until);
        params.put("cursor", cursor);
        StringBuilder q = new StringBuilder("/ui/jobs");
        params.forEach((k, v) -> {
            if (v != null) {
                q.append(q.indexOf("?") < 0 ? "?" : "&").append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        });
        return q.toString();
    }

    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static List<Pages.Option> options(List<String> values, String selected) {
        return values.stream().map(v -> new Pages.Option(v, v, v.equals(selected))).toList();
    }

    private static UUID keyId(String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key: a key id like 8d0f…-… (see the audit trail), not a secret");
        }
    }

    /** A time from the form: {@code datetime-local} (taken as UTC) or RFC 3339. */
    private static OffsetDateTime time(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(value).atOffset(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new IllegalArgumentException(field + ": a time like 2026-01-31T12:00 (UTC)");
            }
        }
    }
}

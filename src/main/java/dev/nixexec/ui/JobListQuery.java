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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The job list's filter as typed into its form or carried by a link (blank fields dropped), read
 * four ways: the form shown again, the service's filter, the page's links and the export links,
 * which carry the filter so that a page is a bookmarkable URL.
 *
 * <p>{@code text} is the full-text search ({@code q}); {@code metadata} the pairs the job's metadata
 * must hold ({@code meta.KEY=VALUE} in a link, {@code KEY=VALUE} separated by spaces in the form's
 * {@code meta} field); {@code tenant} the tenant id an operator picked (the resource ignores it
 * for other roles).
 */
record JobListQuery(String status, String language, String packageName, String key, String node, String since,
        String until, String tenant, String text, Map<String, String> metadata) {

    /** Longest search text taken: a search is for words, not for pasting a whole output. */
    static final int MAX_TEXT = 500;
    static final int MAX_METADATA_PAIRS = 10;
    private static final String META_PREFIX = "meta.";

    JobListQuery {
        metadata = metadata == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(metadata));
    }

    static JobListQuery typed(String status, String language, String packageName, String key, String node,
            String since, String until) {
        return new JobListQuery(blankToNull(status), blankToNull(language), blankToNull(packageName),
                blankToNull(key), blankToNull(node), blankToNull(since), blankToNull(until), null, null, Map.of());
    }

    /**
     * The query of a request, by parameter: the form's fields, {@code q}, {@code tenant}, and the
     * metadata pairs from {@code meta.KEY} parameters and the form's {@code meta} field.
     *
     * @throws IllegalArgumentException when a metadata pair does not read (shown above the list)
     */
    static JobListQuery of(Map<String, List<String>> params) {
        Map<String, String> metadata = new TreeMap<>();
        params.forEach((name, values) -> {
            if (name.startsWith(META_PREFIX) && !values.isEmpty() && blankToNull(values.get(0)) != null) {
                metadata.put(name.substring(META_PREFIX.length()), values.get(0).strip());
            }
        });
        String typedPairs = first(params, "meta");
        if (typedPairs != null) {
            for (String pair : typedPairs.strip().split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("metadata: key=value pairs separated by spaces, like team=red");
                }
                metadata.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        if (metadata.size() > MAX_METADATA_PAIRS) {
            throw new IllegalArgumentException("metadata: at most " + MAX_METADATA_PAIRS + " pairs");
        }
        if (metadata.containsKey("")) {
            throw new IllegalArgumentException("metadata: a key must not be empty");
        }
        String text = first(params, "q");
        if (text != null && text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("search: at most " + MAX_TEXT + " characters");
        }
        return new JobListQuery(first(params, "status"), first(params, "language"), first(params, "package"),
                first(params, "key"), first(params, "node"), first(params, "since"), first(params, "until"),
                first(params, "tenant"), text, metadata);
    }

    /** The form as typed; {@code tenants} (id to name) only for an operator, else empty and no tenant field shows. */
    Pages.Filter form(Map<UUID, String> tenants) {
        return new Pages.Filter(
                options(Arrays.stream(JobStatus.values()).map(JobStatus::id).toList(), status),
                options(Arrays.stream(Language.values()).map(Language::id).toList(), language),
                UiFormat.orEmpty(packageName), UiFormat.orEmpty(key), UiFormat.orEmpty(node),
                UiFormat.orEmpty(since), UiFormat.orEmpty(until), UiFormat.orEmpty(text),
                metadata.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")),
                tenants.entrySet().stream()
                        .map(t -> new Pages.Option(t.getKey().toString(), t.getValue(), t.getKey().toString().equals(tenant)))
                        .toList());
    }

    /** @throws IllegalArgumentException naming the field that does not read (shown above the list) */
    JobReads.Filter filter() {
        return new JobReads.Filter(
                status == null ? null : JobStatus.byId(status).orElseThrow(() -> new IllegalArgumentException("unknown status")),
                language, time("from", since), time("to", until), packageName, key == null ? null : keyId(key), node,
                text, metadata);
    }

    /** The tenant an operator picked, or empty for every tenant. */
    Optional<UUID> tenantId() {
        if (tenant == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(UUID.fromString(tenant));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tenant: a tenant id");
        }
    }

    /** {@code /ui/jobs} with this filter and, unless null, the cursor of the page to show. */
    String link(String cursor) {
        return withParams("/ui/jobs", cursor);
    }

    /** The whole filtered list (up to the export's bound) as {@code csv} or {@code json}. */
    String exportLink(String format) {
        return withParams("/ui/jobs/export." + format, null);
    }

    private String withParams(String path, String cursor) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("tenant", tenant);
        params.put("q", text);
        params.put("status", status);
        params.put("language", language);
        params.put("package", packageName);
        params.put("key", key);
        params.put("node", node);
        params.put("since", since);
        params.put("until", until);
        metadata.forEach((k, v) -> params.put(META_PREFIX + k, v));
        params.put("cursor", cursor);
        StringBuilder q = new StringBuilder(path);
        params.forEach((k, v) -> {
            if (v != null) {
                q.append(q.indexOf("?") < 0 ? "?" : "&").append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=')
                        .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        });
        return q.toString();
    }

    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static String first(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        return values == null || values.isEmpty() ? null : blankToNull(values.get(0));
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

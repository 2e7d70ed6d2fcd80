package dev.nixexec.job;

import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ByteSize;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.tenant.TenantPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Everything intake checks about a submission, whoever sends it (REST, MCP, the command line):
 * the request as the engine will run it (language, code, packages, env, stdin, timeout: the
 * engine's own rules, {@link ExecutionEngine#validate}), its metadata, host workspace and
 * idempotency key, callback URL, then the tenant's policy (its {@code webhook_hosts} among it). Adapters only turn their wire form into a
 * {@link Submission}; a refusal reads the same over all of them.
 */
@ApplicationScoped
public class SubmissionCheck {

    private static final int MAX_IDEMPOTENCY_KEY = 200;
    /**
     * Levels of objects and arrays in a job's metadata, itself the first. Far below what JSON
     * readers and writers take (Jackson's 1,000), so that a job's list, export or MCP answer that
     * wraps the metadata in a few levels more can always be written.
     */
    private static final int MAX_METADATA_DEPTH = 32;

    private final NixExecConfig config;
    private final ExecutionEngine engine;
    private final HostWorkspaces hostWorkspaces;
    private final JobViews views;

    public SubmissionCheck(NixExecConfig config, ExecutionEngine engine, HostWorkspaces hostWorkspaces, JobViews views) {
        this.config = config;
        this.engine = engine;
        this.hostWorkspaces = hostWorkspaces;
        this.views = views;
    }

    /** The checks that need no tenant: throws with the first group of problems found. */
    void check(Submission submission, String idempotencyKey) {
        if (holdsNul(submission.metadata())) {
            // PostgreSQL jsonb cannot hold \u0000 in a key or a string
            throw new InvalidRequestException(List.of(new FieldError("metadata",
                    "contains a NUL character (U+0000) in a key or a string")), false);
        }
        int depth = depth(submission.metadata());
        if (depth > MAX_METADATA_DEPTH) {
            throw new InvalidRequestException(List.of(new FieldError("metadata", "nests " + depth
                    + " levels of objects and arrays; at most " + MAX_METADATA_DEPTH + " are kept")), false);
        }
        engine.validate(submission.run());
        int metadataBytes = views.write(submission.metadata()).getBytes(StandardCharsets.UTF_8).length;
        if (metadataBytes > config.jobs().maxMetadataBytes()) {
            throw new InvalidRequestException(List.of(new FieldError("metadata", "metadata is " + metadataBytes
                    + " bytes as JSON, at most " + config.jobs().maxMetadataBytes() + " are kept")), true);
        }
        if (submission.hostWorkspace().isPresent()
                && !submission.hostWorkspace().equals(submission.hostWorkspace().flatMap(hostWorkspaces::permit))) {
            throw new InvalidRequestException(List.of(new FieldError("workspace",
                    "host directories are mounted only in local mode, from allowed prefixes")), false);
        }
        if (!submission.hostMounts().isEmpty()) {
            try {
                hostWorkspaces.recheck(submission.hostMounts());
            } catch (HostWorkspaces.Refused e) {
                throw new InvalidRequestException(List.of(new FieldError(e.field(), e.getMessage())), false);
            }
        }
        // a session's own files (home, cache) go with a host /workspace; a job's workspace or files do not
        if (submission.hostWorkspace().isPresent() && !submission.files().isEmpty() && submission.session().isEmpty()) {
            throw new InvalidRequestException(List.of(new FieldError("workspace",
                    "a job with a host directory at /workspace takes no workspace, files or artifacts")), false);
        }
        if (submission.callbackUrl().isPresent()) {
            try {
                CallbackUrl.parse(submission.callbackUrl().get());
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException(List.of(new FieldError("callback_url", e.getMessage())), false);
            }
        }
        if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > MAX_IDEMPOTENCY_KEY)) {
            throw new InvalidRequestException(List.of(new FieldError("Idempotency-Key",
                    "must be 1 to " + MAX_IDEMPOTENCY_KEY + " characters")), false);
        }
    }

    /**
     * The tenant's policy: languages, package lists, network, longest timeout, the caps on a run's
     * limits (the service's own were checked by the engine); every problem at once.
     */
    void check(Submission s, TenantPolicy policy) {
        List<FieldError> errors = new ArrayList<>();
        String language = s.run().language().toLowerCase(Locale.ROOT);
        if (policy.languages() != null && !policy.languages().contains(language)) {
            errors.add(new FieldError("language", "language '" + language + "' is not allowed for this tenant; allowed: "
                    + String.join(", ", policy.languages())));
        }
        PackagePolicy packages = new PackagePolicy(Optional.ofNullable(policy.packageDenylist()).orElse(List.of()),
                Optional.ofNullable(policy.packageAllowlist()));
        for (String name : s.run().packages()) {
            packages.rejection(PackageName.parse(name)).ifPresent(reason -> errors.add(new FieldError("packages", reason)));
        }
        if (s.run().network() && !policy.networkAllowed()) {
            errors.add(new FieldError("network", "network \"full\" is not allowed for this tenant"));
        }
        if (policy.maxTimeoutSeconds() != null && s.run().timeout().isPresent()
                && s.run().timeout().get().toSeconds() > policy.maxTimeoutSeconds()) {
            errors.add(new FieldError("timeout", "timeout may be at most " + policy.maxTimeoutSeconds() + "s for this tenant"));
        }
        s.callbackUrl().map(CallbackUrl::parse).filter(url -> !policy.webhooks().lists(url.host(), url.port()))
                .ifPresent(url -> errors.add(new FieldError("callback_url", "host " + url.host() + ":" + url.port()
                        + " is not in this tenant's webhook_hosts" + (policy.webhooks().entries().isEmpty() ? " (none listed)"
                                : ": " + String.join(", ", policy.webhooks().entries())))));
        RequestedLimits limits = s.run().limits();
        if (over(limits.memory(), policy.maxMemoryBytes())) {
            errors.add(new FieldError("limits.memory", "may be at most " + ByteSize.describe(policy.maxMemoryBytes())
                    + " for this tenant"));
        }
        if (over(limits.pids() == null ? null : limits.pids().longValue(),
                policy.maxPids() == null ? null : policy.maxPids().longValue())) {
            errors.add(new FieldError("limits.pids", "may be at most " + policy.maxPids() + " for this tenant"));
        }
        if (over(limits.cpuSeconds(), policy.maxCpuSeconds())) {
            errors.add(new FieldError("limits.cpu_seconds", "may be at most " + policy.maxCpuSeconds() + " for this tenant"));
        }
        if (over(limits.outputBytes(), policy.maxOutputBytes())) {
            errors.add(new FieldError("limits.output_bytes", "may be at most " + ByteSize.describe(policy.maxOutputBytes())
                    + " for this tenant"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
    }

    /** Whether a requested value exceeds a cap; a missing value or cap exceeds nothing. */
    private static boolean over(Long requested, Long cap) {
        return requested != null && cap != null && requested > cap;
    }

    /** Levels of maps and lists, the value itself the first; text and numbers are none. */
    static int depth(Object value) {
        return switch (value) {
            case Map<?, ?> map -> 1 + map.values().stream().mapToInt(SubmissionCheck::depth).max().orElse(0);
            case List<?> list -> 1 + list.stream().mapToInt(SubmissionCheck::depth).max().orElse(0);
            case null, default -> 0;
        };
    }

    static boolean holdsNul(Object value) {
        return switch (value) {
            case String text -> text.indexOf('\0') >= 0;
            case Map<?, ?> map -> map.entrySet().stream().anyMatch(e -> holdsNul(e.getKey()) || holdsNul(e.getValue()));
            case List<?> list -> list.stream().anyMatch(SubmissionCheck::holdsNul);
            case null, default -> false;
        };
    }
}

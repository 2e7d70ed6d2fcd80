package dev.nixexec.job;

import dev.nixexec.config.HostMount;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.tenant.TenantPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a worker needs to run a job it claimed, with its tenant's policy as of the claim, in local
 * mode the host directory to mount at {@code /workspace} (to be checked again), and whether it has
 * a workspace, input files or artifacts to materialise, the session it runs in, if any, and the
 * limits it asked for; the program's arguments, the encoding of its output (base64: keep the exact
 * bytes), for a rerun, the nixpkgs revision it must run on, and in local mode the host paths to mount
 * at their own paths (to be checked again).
 */
public record ClaimedJob(UUID id, UUID tenantId, int attempt, String language, String code, List<String> packages,
        Map<String, String> env, String stdin, Duration timeout, boolean network, TenantPolicy policy,
        Optional<Path> hostWorkspace, boolean hasFiles, Optional<UUID> sessionId, RequestedLimits limits,
        List<String> args, OutputEncoding encoding, Optional<String> requiredNixpkgsRevision,
        List<HostMount> hostMounts) {

    /** A job with no arguments, text output and no revision of its own to run on. */
    public ClaimedJob(UUID id, UUID tenantId, int attempt, String language, String code, List<String> packages,
            Map<String, String> env, String stdin, Duration timeout, boolean network, TenantPolicy policy,
            Optional<Path> hostWorkspace, boolean hasFiles, Optional<UUID> sessionId, RequestedLimits limits) {
        this(id, tenantId, attempt, language, code, packages, env, stdin, timeout, network, policy, hostWorkspace,
                hasFiles, sessionId, limits, List.of(), OutputEncoding.UTF_8, Optional.empty(), List.of());
    }

    public ClaimedJob {
        limits = limits == null ? RequestedLimits.NONE : limits;
        hostMounts = hostMounts == null ? List.of() : List.copyOf(hostMounts);
    }
}

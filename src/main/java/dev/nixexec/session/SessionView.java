package dev.nixexec.session;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A session as clients see it (the contract's session object). {@code environment} is there once
 * it is built; {@code error} says why a failed session failed; {@code build_job_id} is the job
 * that builds it (its events show the build); {@code host_workspace} the host directory mounted at
 * {@code /workspace} in local mode, instead of the session's own.
 */
public record SessionView(UUID id, String name, String status, List<String> packages, String profile, String network,
        List<String> writable, List<String> envNames, String agent, String description, long idleTtl,
        EnvironmentView environment, UUID buildJobId, OffsetDateTime createdAt, OffsetDateTime lastUsedAt,
        OffsetDateTime expiresAt, String error, String hostWorkspace) {

    @Schema(name = "SessionEnvironment")
    public record EnvironmentView(String storePath, String nixpkgsRevision) {
    }

    static SessionView of(SessionRepository.Row r) {
        return new SessionView(r.id(), r.name(), r.status().id(), r.packages(), r.profile(), r.network() ? "full" : "off",
                r.writable(), r.env().keySet().stream().sorted().toList(), r.agent(), r.description(),
                r.idleTtl().toSeconds(), r.storePath() == null ? null : new EnvironmentView(r.storePath(),
                        r.nixpkgsRevision()), r.buildJobId(), r.createdAt(), r.lastUsedAt(), r.expiresAt(), r.error(),
                r.hostWorkspace());
    }
}

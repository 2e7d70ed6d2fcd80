package dev.nixexec.job;

import dev.nixexec.tenant.TenantPolicy;
import java.util.Optional;
import java.util.UUID;

/**
 * A job a worker claimed: its submission (as stored, when claimed from the queue: its metadata, files,
 * callback and rerun are intake's and not read back), whether it has a workspace,
 * input files or artifacts to materialise, its tenant's policy as of the claim, and for a rerun the
 * nixpkgs revision it must run on. Host paths in it are checked again before they are mounted.
 */
public record ClaimedJob(UUID id, UUID tenantId, int attempt, TenantPolicy policy, Submission submission,
        boolean hasFiles, Optional<String> requiredNixpkgsRevision) {
}

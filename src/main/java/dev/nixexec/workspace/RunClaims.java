package dev.nixexec.workspace;

import java.util.UUID;

/**
 * What a store-back needs from the job side, asked inside the store-back's transaction so that a
 * run's files land only while the run is still its job's. Implemented by the job package, which
 * owns the {@code jobs} table.
 */
public interface RunClaims {

    /**
     * Whether the node still holds the job's claim (same attempt) and the job has not ended; if so,
     * the claim is held against the reaper until the transaction ends.
     */
    boolean holdIfStillClaimed(UUID jobId, String nodeId, int attempt);

    /** The job's artifact list as its result shows it (JSON), replacing an earlier attempt's. */
    void showArtifacts(UUID jobId, String artifactsJson);
}

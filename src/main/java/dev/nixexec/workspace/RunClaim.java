package dev.nixexec.workspace;

import java.util.UUID;

/**
 * Whose run a {@link WorkspaceRun} is: its changes are stored only while the job is still claimed
 * so; a run of no job ({@link #NONE}, a session's shell) is stored whenever it finishes.
 */
record RunClaim(UUID jobId, String nodeId, int attempt) {
    static final RunClaim NONE = new RunClaim(null, null, 1);

    boolean ofAJob() {
        return jobId != null;
    }
}

package dev.nixexec.workspace;

/** Why a run's workspace cannot be kept: {@code code} is the job's error code. */
public record WorkspaceProblem(String code, String message) {
    static final String QUOTA = "workspace_quota_exceeded";
    static final String UNSTORABLE = "workspace_unstorable";

    /** A quota overrun (the job's {@code limit_hit} is {@code workspace}), not a tree that cannot be stored. */
    public boolean quota() {
        return code.equals(QUOTA);
    }
}

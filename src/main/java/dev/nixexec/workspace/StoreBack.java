package dev.nixexec.workspace;

/** What became of a run's workspace files when the run ended; the job side turns a refusal into the job's error. */
public sealed interface StoreBack {

    /** The changes were stored, there were none, or the run's code never ran to an end and nothing is kept. */
    record Kept() implements StoreBack {
    }

    /** Nothing of the run was stored, for the reason given ({@code code} is the job's {@code error.code}). */
    record Refused(String code, String message) implements StoreBack {
    }
}

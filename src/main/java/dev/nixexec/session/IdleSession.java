package dev.nixexec.session;

/**
 * The expiry's decision for one session whose idle time ran out, apart from its SQL: a session
 * with a job still queued or running is in use (its idle clock starts again); any other is
 * destroyed with its files.
 */
record IdleSession(SessionRepository.Row session, int unfinishedJobs) {

    enum Verdict {
        /** In use: the idle clock starts again. */
        KEEP,
        /** Destroyed with its files, audited as {@code session_expired}. */
        DESTROY
    }

    Verdict verdict() {
        return unfinishedJobs > 0 ? Verdict.KEEP : Verdict.DESTROY;
    }
}

package dev.nixexec.job;

import java.util.Locale;
import java.util.Optional;

/** {@code queued → building → running → succeeded | failed | timed_out | cancelled | error}. */
public enum JobStatus {
    QUEUED, BUILDING, RUNNING, SUCCEEDED, FAILED, TIMED_OUT, CANCELLED, ERROR;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean terminal() {
        return ordinal() >= SUCCEEDED.ordinal();
    }

    public static Optional<JobStatus> byId(String id) {
        for (JobStatus status : values()) {
            if (status.id().equals(id)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }
}

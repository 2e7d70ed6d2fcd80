package dev.nixexec.session;

import java.util.Arrays;
import java.util.Locale;

/**
 * {@code building → ready | failed}, and any of them {@code → destroyed} (by {@code DELETE} or the
 * idle expiry). A session follows its build job: {@code ready} when the job succeeded (its
 * environment recorded), {@code failed} with the build's reason otherwise.
 */
public enum SessionStatus {
    BUILDING, READY, FAILED, DESTROYED;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    static SessionStatus byId(String id) {
        return Arrays.stream(values()).filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }
}

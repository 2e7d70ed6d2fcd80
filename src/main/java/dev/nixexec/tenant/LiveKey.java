package dev.nixexec.tenant;

import java.time.Instant;

/** A key as looked up: who it stands for, and until when ({@code expiresAt} null: no expiry). */
record LiveKey(Caller caller, Instant expiresAt) {

    static LiveKey of(ApiKey key) {
        return new LiveKey(new Caller(key.tenantId, key.id, Role.byId(key.role).orElseThrow(), key.name),
                key.expiresAt == null ? null : key.expiresAt.toInstant());
    }

    boolean liveAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}

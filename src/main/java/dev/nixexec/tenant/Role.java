package dev.nixexec.tenant;

import java.util.Locale;
import java.util.Optional;

/** What a key may do: admins everything, members submit and read their tenant, auditors only read it. */
public enum Role {
    ADMIN, MEMBER, AUDITOR;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean canSubmit() {
        return this != AUDITOR;
    }

    public static Optional<Role> byId(String id) {
        for (Role role : values()) {
            if (role.id().equals(id)) {
                return Optional.of(role);
            }
        }
        return Optional.empty();
    }
}

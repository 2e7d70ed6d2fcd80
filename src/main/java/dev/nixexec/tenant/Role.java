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

    /** Env values may hold secrets; only admins see them, everyone else the names. */
    public boolean seesEnvValues() {
        return this == ADMIN;
    }

    /** The audit log and fleet figures are for reviewers, not for members who run jobs. */
    public boolean reviews() {
        return this != MEMBER;
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

package dev.nixexec.tenant;

import java.util.Locale;
import java.util.Optional;

/**
 * What a key may do. Every key belongs to a tenant: operators run the platform (tenants, nodes, keys
 * of any tenant) and are admins of their own tenant; admins run their own tenant only; members
 * submit and read their tenant; auditors only read it.
 */
public enum Role {
    OPERATOR, ADMIN, MEMBER, AUDITOR;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean canSubmit() {
        return this != AUDITOR;
    }

    /** Env values may hold secrets; only admins (and operators) of the job's tenant see them. */
    public boolean seesEnvValues() {
        return administers();
    }

    /** The audit log and fleet figures are for reviewers, not for members who run jobs. */
    public boolean reviews() {
        return this != MEMBER;
    }

    /** Manages its own tenant's keys. */
    public boolean administers() {
        return this == OPERATOR || this == ADMIN;
    }

    /** Acts on the platform: every tenant, the node list. */
    public boolean operates() {
        return this == OPERATOR;
    }

    /** Whether a key of this role may make a key of {@code role}: never one that could do more than itself. */
    public boolean mayMint(Role role) {
        return operates() || administers() && role != OPERATOR;
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

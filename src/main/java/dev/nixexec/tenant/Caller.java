package dev.nixexec.tenant;

import java.util.UUID;

/** Who is calling: the key's tenant, the key (empty in local mode) and its role. */
public record Caller(UUID tenantId, UUID keyId, Role role) {
}

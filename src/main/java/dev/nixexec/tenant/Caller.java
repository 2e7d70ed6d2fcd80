package dev.nixexec.tenant;

import dev.nixexec.audit.KeyRef;
import java.util.UUID;

/**
 * Who is calling: the key's tenant, the key (empty in local mode), its role and its name (null when
 * it has none, and where only the id is known).
 */
public record Caller(UUID tenantId, UUID keyId, Role role, String keyName) {

    /** A caller whose key's name is not known here. */
    public Caller(UUID tenantId, UUID keyId, Role role) {
        this(tenantId, keyId, role, null);
    }

    /** The key as records name it: empty in local mode. */
    public java.util.Optional<KeyRef> key() {
        return keyId == null ? java.util.Optional.empty() : java.util.Optional.of(new KeyRef(keyId, keyName, role.id()));
    }
}

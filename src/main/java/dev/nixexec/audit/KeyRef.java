package dev.nixexec.audit;

import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The key that acted, as people read it: its id, its name (null for a key made without one) and
 * its role. A key's name and role are fixed when it is made and keys are never deleted (only
 * revoked), so a name shown beside an old record is the one the key had then.
 */
@Schema(name = "KeyRef")
public record KeyRef(UUID id, String name, String role) {

    /** "name (role)", or the id's first eight characters for a key without a name. */
    public String label() {
        return (name == null ? "key " + id.toString().substring(0, 8) : name) + " (" + role + ")";
    }
}

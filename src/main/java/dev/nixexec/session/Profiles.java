package dev.nixexec.session;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The profiles a tenant can name: nixo's built-ins (tenant profiles come with {@code PUT /v1/profiles}). */
@ApplicationScoped
public class Profiles {

    public List<Profile> list(UUID tenantId) {
        return BuiltInProfiles.ALL;
    }

    public Optional<Profile> find(UUID tenantId, String name) {
        return list(tenantId).stream().filter(p -> p.name().equals(name)).findFirst();
    }
}

package dev.nixexec.ui;

import dev.nixexec.tenant.Tenant;
import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Every tenant's name by id, for an operator's tenant filter and the tenant column of lists across tenants. */
@ApplicationScoped
public class TenantNames {

    /** By name; one query. */
    @Transactional
    public Map<UUID, String> all() {
        Map<UUID, String> names = new LinkedHashMap<>();
        Tenant.<Tenant>listAll(Sort.by("name")).forEach(t -> names.put(t.id, t.name));
        return names;
    }
}

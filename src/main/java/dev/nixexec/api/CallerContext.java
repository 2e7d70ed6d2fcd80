package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import jakarta.enterprise.context.RequestScoped;
import java.util.UUID;

/** The authenticated caller of the current request, set by {@link Authentication}. */
@RequestScoped
public class CallerContext {

    private final Tenants tenants;
    private Caller caller;

    public CallerContext(Tenants tenants) {
        this.tenants = tenants;
    }

    void set(Caller caller) {
        this.caller = caller;
    }

    public Caller get() {
        if (caller == null) {
            throw new Refusal(Refusal.Kind.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>");
        }
        return caller;
    }

    /**
     * The tenant a path or {@code ?tenant=} names, if the caller may act on it: its own, or any for
     * an operator. Any other answers exactly as an unknown tenant, so its existence does not leak.
     */
    public UUID tenant(String tenantId) {
        Caller who = get();
        UUID id = Refusal.uuidOr404(tenantId, "no tenant " + tenantId);
        boolean visible = who.role().operates() ? tenants.find(id).isPresent() : id.equals(who.tenantId());
        if (!visible) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no tenant " + tenantId);
        }
        return id;
    }

    /** {@link #tenant(String)}, or the caller's own tenant when none is named. */
    public UUID tenantOrOwn(String tenantId) {
        return tenantId == null ? get().tenantId() : tenant(tenantId);
    }
}

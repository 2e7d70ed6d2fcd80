package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenant;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.tenant.WebhookHosts;
import dev.nixexec.tenant.WebhookSecrets;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

/**
 * {@code /v1/admin}: tenants (operator), keys and webhook secrets (an admin in its own tenant, an
 * operator in any).
 * A tenant or key an admin may not see answers 404 exactly as an unknown one does.
 */
@SecurityRequirement(name = "bearer")
@Path("/v1/admin")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class AdminResource {

    private final Tenants tenants;
    private final CallerContext caller;
    private final WebhookSecrets webhookSecrets;

    public AdminResource(Tenants tenants, CallerContext caller, WebhookSecrets webhookSecrets) {
        this.tenants = tenants;
        this.caller = caller;
        this.webhookSecrets = webhookSecrets;
    }

    public record TenantBody(String name, TenantPolicy policy) {
    }

    public record TenantView(UUID id, String name, TenantPolicy policy, OffsetDateTime createdAt) {
    }

    public record KeyBody(String role) {
    }

    public record KeyView(UUID id, UUID tenantId, String role, String key) {
    }

    @POST
    @Path("tenants")
    public Response createTenant(TenantBody body) {
        Caller operator = operator();
        if (body == null || body.name() == null || !body.name().matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
            throw new InvalidRequestException(List.of(new FieldError("name",
                    "1 to 63 letters, digits, '_', '.', '-', starting with a letter or digit")), false);
        }
        checkWebhookHosts(body.policy());
        try {
            Tenant tenant = tenants.create(body.name(), body.policy(), operator);
            return Response.status(201).entity(new TenantView(tenant.id, tenant.name, tenants.policy(tenant), tenant.createdAt)).build();
        } catch (Tenants.NameTakenException e) {
            throw new Refusal(Refusal.Kind.CONFLICT, e.getMessage());
        }
    }

    @POST
    @Path("tenants/{id}/keys")
    public Response createKey(@PathParam("id") String tenantId, KeyBody body) {
        Caller admin = admin();
        Role role = body == null || body.role() == null ? null : Role.byId(body.role()).orElse(null);
        if (role == null) {
            throw new InvalidRequestException(List.of(new FieldError("role", "one of operator, admin, member, auditor")), false);
        }
        UUID id = caller.tenant(tenantId);
        if (!admin.role().mayMint(role)) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "only an operator key makes " + role.id() + " keys");
        }
        Tenants.CreatedKey key = tenants.createKey(id, role, admin);
        return Response.status(201).entity(new KeyView(key.id(), key.tenantId(), role.id(), key.secret())).build();
    }

    /** The secret job callbacks of the tenant are signed with; shown this once. */
    public record WebhookSecretView(String secret) {
    }

    /** Makes or replaces the tenant's webhook secret (docs/api.md, "Callbacks"). */
    @POST
    @Path("tenants/{id}/webhook-secret")
    public Response rotateWebhookSecret(@PathParam("id") String tenantId) {
        Caller admin = admin();
        UUID id = caller.tenant(tenantId);
        return Response.status(201).entity(new WebhookSecretView(webhookSecrets.rotate(id, admin))).build();
    }

    /** Every entry of a policy's {@code webhook_hosts} is a host or {@code host:port}. */
    static void checkWebhookHosts(TenantPolicy policy) {
        if (policy == null || policy.webhookHosts() == null) {
            return;
        }
        List<FieldError> errors = policy.webhookHosts().stream().flatMap(e -> WebhookHosts.problem(e).stream())
                .map(problem -> new FieldError("policy.webhook_hosts", problem)).toList();
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
    }

    @DELETE
    @Path("keys/{id}")
    public Response revoke(@PathParam("id") String keyId) {
        Caller admin = admin();
        UUID id = JobsResource.jobIdOr404(keyId, "no key " + keyId);
        Role role = tenants.roleOfKey(id, admin).orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "no key " + keyId));
        // An admin cannot lock the platform's operators out, even those of its own tenant.
        if (!admin.role().mayMint(role)) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "only an operator key revokes " + role.id() + " keys");
        }
        tenants.revoke(id, admin);
        return Response.noContent().build();
    }

    private Caller admin() {
        Caller who = caller.get();
        if (!who.role().administers()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "this needs an admin or operator key");
        }
        return who;
    }

    private Caller operator() {
        Caller who = caller.get();
        if (!who.role().operates()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "this needs an operator key");
        }
        return who;
    }
}

package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenant;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.tenant.WebhookSecrets;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /v1/admin}: tenants (operator; a tenant's policy also its admin), keys and webhook secrets
 * (an admin in its own tenant, an operator in any). A tenant or key an admin may not see answers
 * 404 exactly as an unknown one does.
 */
@SecurityRequirement(name = "bearer")
@Tag(name = "Administration", description = "Tenants, keys and webhook secrets (admin keys)")
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

    /** {@code granted}: what an operator granted, the widest {@code policy} the tenant's admin may set. */
    public record TenantView(UUID id, String name, TenantPolicy policy, TenantPolicy granted, OffsetDateTime createdAt) {
    }

    /** {@code policy}: the fields to change (a merge patch, see {@link Tenants#changePolicy}). */
    public record PolicyPatchBody(@Schema(implementation = TenantPolicy.class) Map<String, Object> policy) {
    }

    public record KeyBody(String role, String name, @Schema(format = "date-time") String expiresAt) {
    }

    /** A made key: {@code key} is its secret, shown here only. */
    public record KeyView(UUID id, UUID tenantId, String key, String name, String role, OffsetDateTime createdAt,
            OffsetDateTime expiresAt) {
    }

    /** A key as listed: never its secret nor its hash. */
    public record KeyListed(UUID id, String name, String role, OffsetDateTime createdAt, OffsetDateTime lastUsedAt,
            OffsetDateTime expiresAt, OffsetDateTime revokedAt) {
    }

    @Operation(summary = "List tenants", description = "Every tenant with its policy and grant, oldest first. Operator keys only.")
    @GET
    @Path("tenants")
    public List<TenantView> tenants() {
        operator();
        return tenants.all().stream().map(this::view).toList();
    }

    @Operation(summary = "Create a tenant", description = "A new tenant with a name and an optional policy (languages, packages, network, caps). Operator keys only.")
    @POST
    @Path("tenants")
    @APIResponse(responseCode = "201", description = "The tenant, created", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = TenantView.class)))
    public Response createTenant(TenantBody body) {
        Caller operator = operator();
        if (body == null || body.name() == null || !body.name().matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
            throw new InvalidRequestException(List.of(new FieldError("name",
                    "1 to 63 letters, digits, '_', '.', '-', starting with a letter or digit")), false);
        }
        List<FieldError> problems = body.policy() == null ? List.of() : body.policy().problems();
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems, false);
        }
        try {
            Tenant tenant = tenants.create(body.name(), body.policy(), operator);
            return Response.status(201).entity(view(tenant)).build();
        } catch (Tenants.NameTakenException e) {
            throw new Refusal(Refusal.Kind.CONFLICT, e.getMessage());
        }
    }

    @Operation(summary = "Change a tenant's policy", description = "A JSON merge patch of the tenant's policy: the fields the body names change, the others keep their values. The tenant's admin, or an operator.")
    @PATCH
    @Path("tenants/{id}")
    public TenantView changePolicy(@PathParam("id") String tenantId, PolicyPatchBody body) {
        Caller admin = admin();
        UUID id = caller.tenant(tenantId);
        if (body == null || body.policy() == null) {
            throw new InvalidRequestException(List.of(new FieldError("policy",
                    "required: an object of the policy fields to change (null resets a field: to the service's default"
                    + " for an operator, to the operator's grant for an admin)")), false);
        }
        tenants.changePolicy(id, body.policy(), admin);
        Tenant tenant = tenants.find(id).orElseThrow();
        return view(tenant);
    }

    private TenantView view(Tenant tenant) {
        return new TenantView(tenant.id, tenant.name, tenants.policy(tenant), tenants.granted(tenant), tenant.createdAt);
    }

    @Operation(summary = "List a tenant's keys", description = "The tenant's keys with their role, name, last use, expiry and revocation; never the secret. The tenant's admin, or an operator.")
    @GET
    @Path("tenants/{id}/keys")
    public List<KeyListed> keys(@PathParam("id") String tenantId) {
        admin();
        return tenants.keys(caller.tenant(tenantId)).stream().map(k -> new KeyListed(k.id(), k.name(), k.role().id(),
                k.createdAt(), k.lastUsedAt(), k.expiresAt(), k.revokedAt())).toList();
    }

    @Operation(summary = "Create a key", description = "A new key for the tenant with a role and an optional name and expiry; the secret is in this answer only. The tenant's admin, or an operator (an operator key needs an operator).")
    @POST
    @Path("tenants/{id}/keys")
    @APIResponse(responseCode = "201", description = "The key, created; its secret is shown only here", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = KeyView.class)))
    public Response createKey(@PathParam("id") String tenantId, KeyBody body) {
        Caller admin = admin();
        List<FieldError> errors = new ArrayList<>();
        Role role = body == null || body.role() == null ? null : Role.byId(body.role()).orElse(null);
        if (role == null) {
            errors.add(new FieldError("role", "one of operator, admin, member, auditor"));
        }
        String name = body == null ? null : body.name();
        if (name != null && (name.isBlank() || name.length() > 100 || name.chars().anyMatch(Character::isISOControl))) {
            errors.add(new FieldError("name", "1 to 100 characters, no control characters"));
        }
        OffsetDateTime expiresAt = body == null || body.expiresAt() == null ? null : expiry(body.expiresAt(), errors);
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        UUID id = caller.tenant(tenantId);
        if (!admin.role().mayMint(role)) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "only an operator key makes " + role.id() + " keys");
        }
        Tenants.CreatedKey key = tenants.createKey(id, role, name, expiresAt, admin);
        return Response.status(201).entity(new KeyView(key.id(), key.tenantId(), key.secret(), key.name(), role.id(),
                key.createdAt(), key.expiresAt())).build();
    }

    /** An RFC 3339 time with its offset (a four-digit year), later than now; null (and an error) otherwise. */
    private static OffsetDateTime expiry(String value, List<FieldError> errors) {
        try {
            OffsetDateTime at = OffsetDateTime.parse(value, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            if (at.getYear() > 9999) {
                throw new DateTimeParseException("year beyond 9999", value, 0);
            }
            if (!at.isAfter(OffsetDateTime.now(ZoneOffset.UTC))) {
                errors.add(new FieldError("expires_at", "must be in the future, not " + value));
                return null;
            }
            return at.withOffsetSameInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError("expires_at", "must be an RFC 3339 time with an offset, e.g. 2030-01-31T12:00:00Z"));
            return null;
        }
    }

    /** The secret job callbacks of the tenant are signed with; shown this once. */
    public record WebhookSecretView(String secret) {
    }

    /** Makes or replaces the tenant's webhook secret (docs/api.md, "Callbacks"). */
    @Operation(summary = "Make or replace the webhook secret", description = "The tenant's secret for signing job callbacks (docs/api.md, Callbacks); shown in this answer only. The old secret stops signing at once.")
    @POST
    @Path("tenants/{id}/webhook-secret")
    @APIResponse(responseCode = "201", description = "The new webhook signing secret, shown only here", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = WebhookSecretView.class)))
    public Response rotateWebhookSecret(@PathParam("id") String tenantId) {
        Caller admin = admin();
        UUID id = caller.tenant(tenantId);
        return Response.status(201).entity(new WebhookSecretView(webhookSecrets.rotate(id, admin))).build();
    }

    @Operation(summary = "Revoke a key", description = "The key stops working at once: its open waits and event streams end.")
    @DELETE
    @Path("keys/{id}")
    public Response revoke(@PathParam("id") String keyId) {
        Caller admin = admin();
        UUID id = Refusal.uuidOr404(keyId, "no key " + keyId);
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

package dev.nixexec.tenant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.AfterCommit;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Tenants and their API keys. Keys are stored as SHA-256 hashes; a secret is returned only when
 * made. Every key lookup is here, and each refuses a revoked or expired key as an unknown one.
 */
@ApplicationScoped
public class Tenants {

    /** Name of the tenant of local mode and of the bootstrap (operator) key. */
    public static final String DEFAULT_TENANT = "default";
    private static final Logger LOG = Logger.getLogger(Tenants.class);
    private static final String SECRET_PREFIX = "nx_";

    private final ObjectMapper json;
    private final AuditLog audit;
    private final TenantCache cache;
    private final AfterCommit afterCommit;
    private final KeyUses uses;
    private final NixExecConfig config;
    private final SecureRandom random = new SecureRandom();

    public Tenants(ObjectMapper json, AuditLog audit, TenantCache cache, AfterCommit afterCommit, KeyUses uses,
            NixExecConfig config) {
        this.json = json;
        this.audit = audit;
        this.cache = cache;
        this.afterCommit = afterCommit;
        this.uses = uses;
        this.config = config;
    }

    /** A made key: {@code secret} is shown to the caller once and never again. */
    public record CreatedKey(UUID id, UUID tenantId, Role role, String name, OffsetDateTime createdAt,
            OffsetDateTime expiresAt, String secret) {
    }

    /** A key as listed: never its secret nor its hash. */
    public record KeyInfo(UUID id, String name, Role role, OffsetDateTime createdAt, OffsetDateTime lastUsedAt,
            OffsetDateTime expiresAt, OffsetDateTime revokedAt) {
    }

    public static class NameTakenException extends RuntimeException {
        public NameTakenException(String name) {
            super("a tenant named '" + name + "' exists");
        }
    }

    @Transactional
    public Tenant create(String name, TenantPolicy policy, Caller by) {
        if (Tenant.count("name", name) > 0) {
            throw new NameTakenException(name);
        }
        Tenant tenant = new Tenant();
        tenant.id = UUID.randomUUID();
        tenant.name = name;
        tenant.policy = JsonColumns.write(json, policy == null ? TenantPolicy.defaults() : policy);
        tenant.granted = tenant.policy;
        tenant.createdAt = OffsetDateTime.now(ZoneOffset.UTC);
        tenant.persist();
        audit.record("tenant_created", tenant.id, null, by == null ? null : by.keyId(), null, Map.of("name", name));
        return tenant;
    }

    @Transactional
    public Optional<Tenant> find(UUID id) {
        return Tenant.findByIdOptional(id);
    }

    /** Every tenant, oldest first. */
    @Transactional
    public List<Tenant> all() {
        return Tenant.list("order by createdAt, id");
    }

    /**
     * Changes a tenant's policy as a JSON merge patch (RFC 7386) of its top level: each field given
     * replaces the stored one whole, the others stay. An operator changes the tenant's {@link Grant}
     * and its policy alike (a null field returns to the service's default); the tenant's admin
     * changes the policy only, within the grant (a null field returns to the grant's value), and a
     * change that would allow more than the grant is refused (403) naming the fields. The result is
     * checked as a new tenant's policy is, and nothing is stored unless all of it passes
     * ({@link InvalidRequestException}). Every node uses the new policy at once ({@link TenantCache});
     * a real change is audited as {@code policy_changed} with both policies (and both grants, if the
     * grant changed).
     */
    @Transactional
    public TenantPolicy changePolicy(UUID tenantId, Map<String, Object> changes, Caller by) {
        Tenant tenant = Tenant.findById(tenantId, LockModeType.PESSIMISTIC_WRITE);
        TenantPolicy before = policy(tenant);
        TenantPolicy grantedBefore = granted(tenant);
        boolean operator = by.role().operates();
        TenantPolicy after = merged(before, changes, operator ? null : grantedBefore);
        TenantPolicy grantedAfter = operator ? merged(grantedBefore, changes, null) : grantedBefore;
        if (!operator) {
            List<String> wider = new Grant(grantedBefore, config.jobs().maxQueuedPerTenant(),
                    config.jobs().maxRunningPerTenant()).exceededBy(after);
            if (!wider.isEmpty()) {
                throw new Refusal(Refusal.Kind.FORBIDDEN, "an admin may narrow its tenant's policy within what an"
                        + " operator granted, not widen it: " + String.join(", ", wider.stream().map(f -> "policy." + f).toList()));
            }
        }
        if (!after.equals(before) || !grantedAfter.equals(grantedBefore)) {
            tenant.policy = JsonColumns.write(json, after);
            tenant.granted = JsonColumns.write(json, grantedAfter);
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("before", before);
            detail.put("after", after);
            if (!grantedAfter.equals(grantedBefore)) {
                detail.put("granted_before", grantedBefore);
                detail.put("granted_after", grantedAfter);
            }
            audit.record("policy_changed", tenantId, null, by.keyId(), null, detail);
            announceChange();
        }
        return after;
    }

    /**
     * {@code changes} merged into {@code policy}: a null field is removed (the service's default),
     * or, given {@code nullsTo}, takes that policy's value. Checked whole: {@link TenantPolicy#problems}.
     */
    private TenantPolicy merged(TenantPolicy policy, Map<String, Object> changes, TenantPolicy nullsTo) {
        ObjectNode merged = json.valueToTree(policy);
        ObjectNode fallback = nullsTo == null ? null : json.valueToTree(nullsTo);
        changes.forEach((field, value) -> {
            if (value != null) {
                merged.set(field, json.valueToTree(value));
            } else if (fallback != null && fallback.has(field)) {
                merged.set(field, fallback.get(field));
            } else {
                merged.remove(field);
            }
        });
        TenantPolicy result;
        try {
            result = json.treeToValue(merged, TenantPolicy.class);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException(List.of(unreadable(e)), false);
        }
        List<FieldError> problems = result.problems();
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems, false);
        }
        return result;
    }

    /** Where a policy's JSON went wrong, in the words the REST API uses for a body. */
    private static FieldError unreadable(JsonProcessingException e) {
        StringBuilder field = new StringBuilder("policy");
        if (e instanceof JsonMappingException mapping) {
            for (JsonMappingException.Reference ref : mapping.getPath()) {
                field.append(ref.getFieldName() != null ? "." + ref.getFieldName() : "[" + ref.getIndex() + "]");
            }
        }
        return new FieldError(field.toString(), e instanceof UnrecognizedPropertyException ? "unknown field"
                : "has the wrong type or shape");
    }

    /** The tenant with this name, made with default policy if it does not exist. */
    @Transactional
    public Tenant named(String name) {
        return Tenant.<Tenant>find("name", name).firstResultOptional().orElseGet(() -> create(name, TenantPolicy.defaults(), null));
    }

    /**
     * Who every request is in local single-user mode: the one user runs the platform, so an operator
     * (of the default tenant, where its jobs go).
     */
    @Transactional
    public Caller localOperator() {
        return new Caller(named(DEFAULT_TENANT).id, null, Role.OPERATOR);
    }

    /** What an operator granted the tenant: the widest policy its admin may set ({@link Grant}). */
    public TenantPolicy granted(Tenant tenant) {
        try {
            return json.readValue(tenant.granted, TenantPolicy.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable grant of tenant " + tenant.id, e);
        }
    }

    public TenantPolicy policy(Tenant tenant) {
        try {
            return json.readValue(tenant.policy, TenantPolicy.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable policy of tenant " + tenant.id, e);
        }
    }

    @Transactional
    public TenantPolicy policy(UUID tenantId) {
        return cache.policy(tenantId, () -> policy(Tenant.<Tenant>findByIdOptional(tenantId).orElseThrow()));
    }

    /** A new key; {@code name} and {@code expiresAt} (null: never) are the caller's to have checked. */
    @Transactional
    public CreatedKey createKey(UUID tenantId, Role role, String name, OffsetDateTime expiresAt, Caller by) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String secret = SECRET_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        return storeKey(tenantId, role, name, expiresAt, secret, by);
    }

    /** The tenant's keys, oldest first, revoked and expired ones too. */
    @Transactional
    public List<KeyInfo> keys(UUID tenantId) {
        return ApiKey.<ApiKey>list("tenantId = ?1 order by createdAt, id", tenantId).stream()
                .map(k -> new KeyInfo(k.id, k.name, Role.byId(k.role).orElseThrow(), k.createdAt, k.lastUsedAt,
                        k.expiresAt, k.revokedAt))
                .toList();
    }

    /**
     * Makes sure an operator key of the default tenant with this secret exists (for automation that
     * starts from nothing). The bootstrap key of a database older than the operator role is an admin
     * key: it is promoted here, being the key the deployment configured to run the platform. A key
     * with this secret in another tenant is not (a tenant's key never becomes an operator by
     * configuration), nor is a revoked one revived.
     */
    @Transactional
    public void ensureOperatorKey(String secret) {
        Tenant home = named(DEFAULT_TENANT);
        Optional<ApiKey> existing = ApiKey.<ApiKey>find("secretHash", hash(secret)).firstResultOptional();
        if (existing.isEmpty()) {
            storeKey(home.id, Role.OPERATOR, null, null, secret, null);
            return;
        }
        ApiKey key = existing.get();
        if (!key.tenantId.equals(home.id)) {
            LOG.warnf("the bootstrap key's secret is that of key %s of another tenant; it is not made an operator key", key.id);
        } else if (key.revokedAt == null && !Role.OPERATOR.id().equals(key.role)) {
            audit.record("key_promoted", key.tenantId, null, null, null,
                    Map.of("key_id", key.id.toString(), "from", key.role, "role", Role.OPERATOR.id()));
            key.role = Role.OPERATOR.id();
            announceChange();
        }
    }

    private CreatedKey storeKey(UUID tenantId, Role role, String name, OffsetDateTime expiresAt, String secret, Caller by) {
        ApiKey key = new ApiKey();
        key.id = UUID.randomUUID();
        key.tenantId = tenantId;
        key.role = role.id();
        key.name = name;
        key.secretHash = hash(secret);
        key.createdAt = OffsetDateTime.now(ZoneOffset.UTC);
        key.expiresAt = expiresAt;
        key.persist();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("key_id", key.id.toString());
        detail.put("role", role.id());
        if (name != null) {
            detail.put("name", name);
        }
        if (expiresAt != null) {
            detail.put("expires_at", expiresAt);
        }
        audit.record("key_created", tenantId, null, by == null ? null : by.keyId(), null, detail);
        return new CreatedKey(key.id, tenantId, role, name, key.createdAt, expiresAt, secret);
    }

    /** The caller a bearer secret stands for, if it is a live key: neither revoked nor expired. */
    @Transactional
    public Optional<Caller> authenticate(String secret) {
        if (secret == null || secret.isBlank()) {
            return Optional.empty();
        }
        byte[] hash = hash(secret);
        Instant now = Instant.now();
        return live(cache.key(HexFormat.of().formatHex(hash), () -> ApiKey.<ApiKey>find("secretHash = ?1 and revokedAt is null",
                hash).firstResultOptional().map(LiveKey::of).filter(k -> k.liveAt(now))), now);
    }

    /** The caller of a bearer secret if this node keeps it ({@link TenantCache}) and it is live; never reads the database. */
    public Optional<Caller> kept(String secret) {
        if (secret == null || secret.isBlank()) {
            return Optional.empty();
        }
        return live(cache.kept(HexFormat.of().formatHex(hash(secret))), Instant.now());
    }

    /** The caller a key id stands for while the key is live (a browser session keeps only the id). */
    @Transactional
    public Optional<Caller> callerOfKey(UUID keyId) {
        return live(ApiKey.<ApiKey>find("id = ?1 and revokedAt is null", keyId).firstResultOptional().map(LiveKey::of),
                Instant.now());
    }

    /** A key found is used only if it has not expired, even when kept from before its expiry. */
    private Optional<Caller> live(Optional<LiveKey> key, Instant now) {
        return key.filter(k -> k.liveAt(now)).map(k -> {
            uses.used(k.caller().keyId(), now);
            return k.caller();
        });
    }

    /** The role of a key, if the caller may see it: a key of its own tenant, or any key for an operator. */
    @Transactional
    public Optional<Role> roleOfKey(UUID keyId, Caller by) {
        return ApiKey.<ApiKey>findByIdOptional(keyId).filter(k -> by.role().operates() || k.tenantId.equals(by.tenantId()))
                .map(k -> Role.byId(k.role).orElseThrow());
    }

    /** Revokes a key that exists ({@link #roleOfKey}); who may revoke which key is the caller's to check. */
    @Transactional
    public void revoke(UUID keyId, Caller by) {
        ApiKey key = ApiKey.findById(keyId);
        if (key.revokedAt == null) {
            key.revokedAt = OffsetDateTime.now(ZoneOffset.UTC);
            audit.record("key_revoked", key.tenantId, null, by.keyId(), null, Map.of("key_id", keyId.toString()));
            announceChange();
        }
    }

    /** Every node drops what it keeps of keys and policies once this transaction commits; this one at once. */
    private void announceChange() {
        ApiKey.getEntityManager().createNativeQuery("SELECT pg_notify(?1, '')").setParameter(1, TenantCache.CHANNEL)
                .getSingleResult();
        afterCommit.run(cache::changed);
    }

    static byte[] hash(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

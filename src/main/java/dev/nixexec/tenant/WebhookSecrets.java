package dev.nixexec.tenant;

import dev.nixexec.audit.AuditLog;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Each tenant's webhook secret, the key its job callbacks are signed with. Kept as it is (signing
 * needs it back), shown once when made, never logged nor audited.
 */
@ApplicationScoped
public class WebhookSecrets {

    private static final String PREFIX = "whsec_";

    private final AuditLog audit;
    private final SecureRandom random = new SecureRandom();

    public WebhookSecrets(AuditLog audit) {
        this.audit = audit;
    }

    /** A new secret for the tenant, replacing any it had; the only time it is returned. */
    @Transactional
    public String rotate(UUID tenantId, Caller by) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Object replaced = Tenant.getEntityManager().createNativeQuery("""
                INSERT INTO tenant_webhook_secrets AS s (tenant_id, secret) VALUES (?1, ?2)
                ON CONFLICT (tenant_id) DO UPDATE SET secret = excluded.secret, created_at = now()
                RETURNING (xmax <> 0)""").setParameter(1, tenantId).setParameter(2, secret).getSingleResult();
        audit.record("webhook_secret_set", tenantId, null, by.keyId(), null,
                Map.of("rotated", Boolean.TRUE.equals(replaced)));
        return secret;
    }

    /** Whether the tenant has a secret (a job with a callback needs one). */
    @Transactional
    public boolean present(UUID tenantId) {
        return secret(tenantId).isPresent();
    }

    /** The key to sign the tenant's callbacks with. */
    @Transactional
    public Optional<byte[]> secret(UUID tenantId) {
        @SuppressWarnings("unchecked")
        List<String> rows = Tenant.getEntityManager()
                .createNativeQuery("SELECT secret FROM tenant_webhook_secrets WHERE tenant_id = ?1")
                .setParameter(1, tenantId).getResultList();
        return rows.stream().findFirst().map(s -> s.getBytes(StandardCharsets.UTF_8));
    }
}

package dev.nixexec.ui;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Signed-in browser sessions. The browser gets a random token (in an HttpOnly cookie); the database
 * keeps its hash and the key's id, never the key. Each request looks the key up again, so a revoked
 * key signs its sessions out at once, and any API node can serve any session.
 */
@ApplicationScoped
public class UiSessions {

    /** A session ends this long after sign-in, whatever happens in between. */
    static final Duration LIFETIME = Duration.ofHours(8);

    private final EntityManager em;
    private final Tenants tenants;
    private final AuditLog audit;
    private final SecureRandom random = new SecureRandom();

    public UiSessions(EntityManager em, Tenants tenants, AuditLog audit) {
        this.em = em;
        this.tenants = tenants;
        this.audit = audit;
    }

    /** A new session: {@code token} goes into the cookie, {@code csrf} into the pages' forms. */
    public record Started(String token, String csrf) {
    }

    /** Who a live session is, and the token its forms must carry. */
    public record Session(Caller caller, String csrf) {
    }

    @Transactional
    public Started start(Caller caller) {
        em.createNativeQuery("DELETE FROM ui_sessions WHERE expires_at < now()").executeUpdate();
        String token = randomToken();
        String csrf = randomToken();
        em.createNativeQuery("INSERT INTO ui_sessions (token_hash, key_id, csrf_token, expires_at) "
                        + "VALUES (?1, ?2, ?3, now() + make_interval(secs => ?4))")
                .setParameter(1, hash(token)).setParameter(2, caller.keyId()).setParameter(3, csrf)
                .setParameter(4, (double) LIFETIME.toSeconds()).executeUpdate();
        audit.record("ui_signed_in", caller.tenantId(), null, caller.keyId(), null, Map.of("role", caller.role().id()));
        return new Started(token, csrf);
    }

    @Transactional
    public Optional<Session> find(String token) {
        if (token == null || token.isBlank() || token.length() > 100) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT key_id, csrf_token FROM ui_sessions "
                + "WHERE token_hash = ?1 AND expires_at > now()").setParameter(1, hash(token)).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        String csrf = (String) rows.get(0)[1];
        return tenants.callerOfKey((UUID) rows.get(0)[0]).map(caller -> new Session(caller, csrf));
    }

    @Transactional
    public void end(String token) {
        em.createNativeQuery("DELETE FROM ui_sessions WHERE token_hash = ?1").setParameter(1, hash(token)).executeUpdate();
    }

    String randomToken() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Compares two tokens in time independent of where they differ. */
    static boolean sameToken(String expected, String given) {
        return expected != null && given != null && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] hash(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

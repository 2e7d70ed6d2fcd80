package dev.nixexec.ui;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.database.SqlFile;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Signed-in browser sessions. The browser gets a random token (in an HttpOnly cookie); the database
 * keeps its hash and the key's id, never the key. Each request looks the key up again, so a revoked
 * key signs its sessions out at once, and any API node can serve any session.
 */
@ApplicationScoped
public class UiSessions {

    /** A session ends this long after sign-in, whatever happens in between. */
    static final Duration LIFETIME = Duration.ofHours(8);

    private static final SqlFile SQL = SqlFile.of(UiSessions.class, "ui-sessions.sql");

    private final DataSource db;
    private final Tenants tenants;
    private final AuditLog audit;
    private final SecureRandom random = new SecureRandom();

    public UiSessions(AgroalDataSource db, Tenants tenants, AuditLog audit) {
        this.db = db;
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
        SQL.update(db, "DeleteExpired", Map.of());
        String token = randomToken();
        String csrf = randomToken();
        SQL.update(db, "Insert", Map.of("token_hash", hash(token), "key", caller.keyId(), "csrf", csrf,
                "lifetime", (double) LIFETIME.toSeconds()));
        audit.record("ui_signed_in", caller.tenantId(), null, caller.keyId(), null, Map.of("role", caller.role().id()));
        return new Started(token, csrf);
    }

    @Transactional
    public Optional<Session> find(String token) {
        if (token == null || token.isBlank() || token.length() > 100) {
            return Optional.empty();
        }
        record Row(UUID key, String csrf) {
        }
        return SQL.query(db, "Find", Map.of("token_hash", hash(token)),
                rs -> new Row(rs.getObject("key_id", UUID.class), rs.getString("csrf_token"))).stream().findFirst()
                .flatMap(row -> tenants.callerOfKey(row.key()).map(caller -> new Session(caller, row.csrf())));
    }

    @Transactional
    public void end(String token) {
        SQL.update(db, "Delete", Map.of("token_hash", hash(token)));
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

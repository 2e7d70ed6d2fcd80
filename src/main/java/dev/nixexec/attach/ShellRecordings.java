package dev.nixexec.attach;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Tuple;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * The recordings of attached shells (migration V66), written when a shell ends and read for
 * review: only by the tenant's auditors, admins and operators, since what was typed may hold
 * secrets (docs/security.md).
 */
@ApplicationScoped
public class ShellRecordings {

    /** One shell as recorded; {@code cast} is the asciicast v2 text (empty in a list). */
    public record Recording(UUID id, UUID tenantId, UUID sessionId, UUID keyId, OffsetDateTime startedAt,
            OffsetDateTime endedAt, long bytesIn, long bytesOut, boolean truncated, int closeCode, String closeReason,
            Integer exitCode, String cast) {
    }

    private static final String COLUMNS = "id, tenant_id, session_id, key_id, started_at, ended_at, bytes_in, bytes_out, "
            + "truncated, close_code, close_reason, exit_code";

    private final EntityManager em;

    public ShellRecordings(EntityManager em) {
        this.em = em;
    }

    @Transactional(Transactional.TxType.MANDATORY)
    void store(Recording r) {
        em.createNativeQuery("INSERT INTO shell_recordings (" + COLUMNS + ", \"cast\") "
                        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")
                .setParameter(1, r.id()).setParameter(2, r.tenantId()).setParameter(3, r.sessionId())
                .setParameter(4, r.keyId()).setParameter(5, r.startedAt()).setParameter(6, r.endedAt())
                .setParameter(7, r.bytesIn()).setParameter(8, r.bytesOut()).setParameter(9, r.truncated())
                .setParameter(10, r.closeCode()).setParameter(11, r.closeReason()).setParameter(12, r.exitCode())
                .setParameter(13, r.cast()).executeUpdate();
    }

    /** The caller's tenant's recording {@code id} with its cast; another tenant's is "not found". */
    @Transactional
    public Recording find(Caller caller, UUID id) {
        mayRead(caller);
        @SuppressWarnings("unchecked")
        List<Tuple> rows = em.createNativeQuery("SELECT " + COLUMNS + ", \"cast\" FROM shell_recordings "
                + "WHERE id = ?1 AND tenant_id = ?2", Tuple.class).setParameter(1, id).setParameter(2, caller.tenantId())
                .getResultList();
        return rows.stream().map(t -> recording(t, t.get("cast", String.class))).findFirst()
                .orElseThrow(() -> Refusal.notFound(id.toString()));
    }

    /** The shells of one of the caller's tenant's sessions, oldest first, without their casts. */
    @Transactional
    public List<Recording> ofSession(Caller caller, UUID sessionId) {
        mayRead(caller);
        @SuppressWarnings("unchecked")
        List<Tuple> rows = em.createNativeQuery("SELECT " + COLUMNS + " FROM shell_recordings "
                + "WHERE tenant_id = ?1 AND session_id = ?2 ORDER BY started_at", Tuple.class)
                .setParameter(1, caller.tenantId()).setParameter(2, sessionId).getResultList();
        return rows.stream().map(t -> recording(t, "")).toList();
    }

    private static void mayRead(Caller caller) {
        if (!caller.role().reviews()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN,
                    "shell recordings may hold what was typed (secrets too): auditor, admin or operator keys only");
        }
    }

    private static Recording recording(Tuple t, String cast) {
        return new Recording(t.get("id", UUID.class), t.get("tenant_id", UUID.class), t.get("session_id", UUID.class),
                t.get("key_id", UUID.class), time(t.get("started_at")), time(t.get("ended_at")),
                ((Number) t.get("bytes_in")).longValue(), ((Number) t.get("bytes_out")).longValue(),
                t.get("truncated", Boolean.class), ((Number) t.get("close_code")).intValue(),
                t.get("close_reason", String.class), t.get("exit_code") == null ? null : ((Number) t.get("exit_code")).intValue(),
                cast);
    }

    private static OffsetDateTime time(Object value) {
        return switch (value) {
            case OffsetDateTime t -> t.withOffsetSameInstant(ZoneOffset.UTC);
            case java.time.Instant i -> i.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            default -> throw new IllegalStateException("not a time: " + value);
        };
    }

    /** Deletes the recordings of shells that ended longer than {@code retention} ago. */
    @Transactional
    public int expire(Duration retention) {
        return em.createNativeQuery("DELETE FROM shell_recordings WHERE ended_at < now() - make_interval(secs => ?1)")
                .setParameter(1, (double) retention.toSeconds()).executeUpdate();
    }
}

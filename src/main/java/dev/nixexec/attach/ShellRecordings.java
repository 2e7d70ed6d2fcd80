package dev.nixexec.attach;

import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

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

    private static final SqlFile SQL = SqlFile.of(ShellRecordings.class, "shell-recordings.sql");

    private final DataSource db;

    public ShellRecordings(AgroalDataSource db) {
        this.db = db;
    }

    @Transactional(Transactional.TxType.MANDATORY)
    void store(Recording r) {
        SQL.update(db, "Store", NamedStatement.values().set("id", r.id()).set("tenant", r.tenantId())
                .set("session", r.sessionId()).set("key", r.keyId()).set("started_at", r.startedAt())
                .set("ended_at", r.endedAt()).set("bytes_in", r.bytesIn()).set("bytes_out", r.bytesOut())
                .set("truncated", r.truncated()).set("close_code", r.closeCode()).set("close_reason", r.closeReason())
                .set("exit_code", r.exitCode()).set("cast", r.cast()).map());
    }

    /** The caller's tenant's recording {@code id} with its cast; another tenant's is "not found". */
    @Transactional
    public Recording find(Caller caller, UUID id) {
        mayRead(caller);
        return SQL.query(db, "Find", Map.of("id", id, "tenant", caller.tenantId()), ShellRecordings::recording).stream()
                .findFirst().orElseThrow(() -> Refusal.notFound(id.toString()));
    }

    /** The shells of one of the caller's tenant's sessions, oldest first, without their casts. */
    @Transactional
    public List<Recording> ofSession(Caller caller, UUID sessionId) {
        mayRead(caller);
        return SQL.query(db, "OfSession", Map.of("tenant", caller.tenantId(), "session", sessionId),
                ShellRecordings::recording);
    }

    private static void mayRead(Caller caller) {
        if (!caller.role().reviews()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN,
                    "shell recordings may hold what was typed (secrets too): auditor, admin or operator keys only");
        }
    }

    private static Recording recording(ResultSet rs) throws SQLException {
        return new Recording(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class),
                rs.getObject("session_id", UUID.class), rs.getObject("key_id", UUID.class), time(rs, "started_at"),
                time(rs, "ended_at"), rs.getLong("bytes_in"), rs.getLong("bytes_out"), rs.getBoolean("truncated"),
                rs.getInt("close_code"), rs.getString("close_reason"), rs.getObject("exit_code", Integer.class),
                rs.getString("cast"));
    }

    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC);
    }

    /** Deletes the recordings of shells that ended longer than {@code retention} ago. */
    @Transactional
    public int expire(Duration retention) {
        return SQL.update(db, "Expire", Map.of("retention_seconds", (double) retention.toSeconds()));
    }
}

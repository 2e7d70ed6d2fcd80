package dev.nixexec.session;

import static dev.nixexec.database.JsonColumns.read;
import static dev.nixexec.database.JsonColumns.write;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * All SQL of sessions: the named statements of {@code sessions.sql}, rows read by column name into
 * {@link Row}s. Callers hold the transaction; nothing here checks roles, caps or states
 * ({@link SessionService} does).
 */
@ApplicationScoped
class SessionRepository {

    /** A stored session. */
    record Row(UUID id, UUID tenantId, UUID keyId, String name, SessionStatus status, List<String> packages,
            String profile, boolean network, Map<String, String> env, List<String> writable, String agent,
            String description, Duration idleTtl, UUID buildJobId, UUID workspaceId, String storePath,
            String nixpkgsRevision, String error, OffsetDateTime createdAt, OffsetDateTime lastUsedAt,
            OffsetDateTime expiresAt, String hostWorkspace) {
    }

    private static final SqlFile SQL = SqlFile.of(SessionRepository.class, "sessions.sql");

    /** Salt of the per-tenant lock that makes the count of live sessions and the insert one step. */
    private static final long CREATE_LOCK = 0x6e697873_65737331L;

    private final DataSource db;
    private final ObjectMapper json;

    SessionRepository(AgroalDataSource db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /** Held until the transaction ends: one tenant's creates one at a time, so the cap holds. */
    void lockTenant(UUID tenant) {
        SQL.single(db, "LockTenant", Map.of("salt", CREATE_LOCK, "tenant", tenant.toString()), rs -> true);
    }

    long live(UUID tenant) {
        return SQL.single(db, "Live", Map.of("tenant", tenant), rs -> rs.getLong("live"));
    }

    /** Stores a new session as building; false when a live session of its tenant has its name. */
    boolean insert(Row r) {
        return SQL.update(db, "Insert", NamedStatement.values().set("id", r.id()).set("tenant", r.tenantId())
                .set("key", r.keyId()).set("name", r.name()).set("packages", write(json, r.packages()))
                .set("profile", r.profile()).set("network", r.network()).set("env", write(json, r.env()))
                .set("writable", write(json, r.writable())).set("agent", r.agent()).set("description", r.description())
                .set("idle_ttl_ms", r.idleTtl().toMillis()).set("workspace", r.workspaceId())
                .set("host_workspace", r.hostWorkspace()).set("idle_ttl_seconds", r.idleTtl().toMillis() / 1000.0)
                .map()) == 1;
    }

    void buildJob(UUID id, UUID jobId) {
        SQL.update(db, "BuildJob", Map.of("job", jobId, "id", id));
    }

    /** A session of the tenant is gone for good when its build could not even be queued. */
    void forget(UUID tenant, UUID id) {
        SQL.update(db, "Forget", Map.of("id", id, "tenant", tenant));
    }

    /**
     * The tenant's session with this id, or else the live (or, failing that, the newest) one of this
     * name; an id wins over a name that spells another session's id.
     */
    Optional<Row> find(UUID tenant, UUID id, String name) {
        return SQL.query(db, "Find", NamedStatement.values().set("tenant", tenant).set("id", id).set("name", name).map(),
                this::row).stream().findFirst();
    }

    Optional<Row> byId(UUID id) {
        return SQL.query(db, "ById", Map.of("id", id), this::row).stream().findFirst();
    }

    /** The tenant's live sessions, newest first. */
    List<Row> list(UUID tenant) {
        return SQL.query(db, "List", Map.of("tenant", tenant), this::row);
    }

    /** A building session's build ended: ready with its environment, or failed with the build's reason. */
    boolean settle(UUID id, SessionStatus status, String storePath, String revision, String error) {
        return SQL.update(db, "Settle", NamedStatement.values().set("status", status.id()).set("store_path", storePath)
                .set("revision", revision).set("error", error).set("id", id).map()) == 1;
    }

    /** A use now: the idle clock starts again. */
    void touch(UUID id) {
        SQL.update(db, "Touch", Map.of("id", id));
    }

    /** Marks the session destroyed; empty when it already was (or is not the tenant's). */
    Optional<Row> destroy(UUID tenant, UUID id) {
        List<UUID> changed = SQL.query(db, "Destroy", Map.of("id", id, "tenant", tenant),
                rs -> rs.getObject("id", UUID.class));
        return changed.isEmpty() ? Optional.empty() : byId(id);
    }

    /** Live sessions whose idle time ran out, locked against a second expiry on another node. */
    List<Row> expired(int limit) {
        return SQL.query(db, "Expired", Map.of("limit", limit), this::row);
    }

    /** The sessions of all tenants that are not destroyed, by status. */
    Map<SessionStatus, Long> countByStatus() {
        return SQL.query(db, "CountByStatus", Map.of(),
                rs -> Map.entry(SessionStatus.byId(rs.getString("status")), rs.getLong("n"))).stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private Row row(ResultSet rs) throws SQLException {
        return new Row(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class),
                rs.getObject("key_id", UUID.class), rs.getString("name"), SessionStatus.byId(rs.getString("status")),
                read(json, rs.getString("packages"), new TypeReference<List<String>>() { }), rs.getString("profile"),
                rs.getBoolean("network"), read(json, rs.getString("env"), new TypeReference<Map<String, String>>() { }),
                read(json, rs.getString("writable"), new TypeReference<List<String>>() { }), rs.getString("agent"),
                rs.getString("description"), Duration.ofMillis(rs.getLong("idle_ttl_ms")),
                rs.getObject("build_job_id", UUID.class), rs.getObject("workspace_id", UUID.class),
                rs.getString("store_path"), rs.getString("nixpkgs_revision"), rs.getString("error"),
                time(rs, "created_at"), time(rs, "last_used_at"), time(rs, "expires_at"),
                rs.getString("host_workspace"));
    }

    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.withOffsetSameInstant(ZoneOffset.UTC);
    }
}

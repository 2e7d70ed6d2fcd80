package dev.nixexec.session;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * All SQL of sessions, rows read by column name into {@link Row}s. Callers hold the transaction;
 * nothing here checks roles, caps or states ({@link SessionService} does).
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

    private static final String COLUMNS = """
            SELECT id, tenant_id, key_id, name, status, packages::text AS packages, profile, network, env::text AS env,
                   writable::text AS writable, agent, description, idle_ttl_ms, build_job_id, workspace_id, store_path,
                   nixpkgs_revision, error, created_at, last_used_at, expires_at, host_workspace
              FROM sessions
            """;

    /** Salt of the per-tenant lock that makes the count of live sessions and the insert one step. */
    private static final long CREATE_LOCK = 0x6e697873_65737331L;

    private final EntityManager em;
    private final ObjectMapper json;

    SessionRepository(EntityManager em, ObjectMapper json) {
        this.em = em;
        this.json = json;
    }

    /** Held until the transaction ends: one tenant's creates one at a time, so the cap holds. */
    void lockTenant(UUID tenant) {
        em.createNativeQuery("SELECT pg_advisory_xact_lock(:salt # hashtextextended(CAST(:tenant AS text), 0))")
                .setParameter("salt", CREATE_LOCK).setParameter("tenant", tenant.toString()).getSingleResult();
    }

    long live(UUID tenant) {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM sessions WHERE tenant_id = :tenant AND status <> 'destroyed'")
                .setParameter("tenant", tenant).getSingleResult()).longValue();
    }

    /** Stores a new session as building; false when a live session of its tenant has its name. */
    boolean insert(Row r) {
        return em.createNativeQuery("""
                INSERT INTO sessions (id, tenant_id, key_id, name, status, packages, profile, network, env, writable,
                                      agent, description, idle_ttl_ms, workspace_id, host_workspace, created_at,
                                      last_used_at, expires_at)
                VALUES (:id, :tenant, CAST(:key AS uuid), CAST(:name AS text), 'building', CAST(:packages AS jsonb),
                        CAST(:profile AS text), :network, CAST(:env AS jsonb), CAST(:writable AS jsonb),
                        CAST(:agent AS text), CAST(:description AS text), :idle_ttl_ms, :workspace,
                        CAST(:host_workspace AS text), now(), now(),
                        now() + make_interval(secs => :idle_ttl_seconds))
                ON CONFLICT (tenant_id, name) WHERE status <> 'destroyed' AND name IS NOT NULL DO NOTHING
                """).setParameter("id", r.id()).setParameter("tenant", r.tenantId()).setParameter("key", r.keyId())
                .setParameter("name", r.name()).setParameter("packages", write(r.packages()))
                .setParameter("profile", r.profile()).setParameter("network", r.network())
                .setParameter("env", write(r.env())).setParameter("writable", write(r.writable()))
                .setParameter("agent", r.agent()).setParameter("description", r.description())
                .setParameter("idle_ttl_ms", r.idleTtl().toMillis()).setParameter("workspace", r.workspaceId())
                .setParameter("host_workspace", r.hostWorkspace())
                .setParameter("idle_ttl_seconds", r.idleTtl().toMillis() / 1000.0).executeUpdate() == 1;
    }

    void buildJob(UUID id, UUID jobId) {
        em.createNativeQuery("UPDATE sessions SET build_job_id = :job WHERE id = :id")
                .setParameter("job", jobId).setParameter("id", id).executeUpdate();
    }

    /** A session of the tenant is gone for good when its build could not even be queued. */
    void forget(UUID tenant, UUID id) {
        em.createNativeQuery("DELETE FROM sessions WHERE id = :id AND tenant_id = :tenant")
                .setParameter("id", id).setParameter("tenant", tenant).executeUpdate();
    }

    /**
     * The tenant's session with this id, or else the live (or, failing that, the newest) one of this
     * name; an id wins over a name that spells another session's id.
     */
    Optional<Row> find(UUID tenant, UUID id, String name) {
        return rows(em.createNativeQuery(COLUMNS + """
                WHERE tenant_id = :tenant AND (id = :id OR name = :name)
                ORDER BY (id = :id) DESC, (status <> 'destroyed') DESC, created_at DESC LIMIT 1
                """, Tuple.class).setParameter("tenant", tenant).setParameter("id", id).setParameter("name", name)
                .getResultList()).stream().findFirst();
    }

    Optional<Row> byId(UUID id) {
        return rows(em.createNativeQuery(COLUMNS + "WHERE id = :id", Tuple.class).setParameter("id", id)
                .getResultList()).stream().findFirst();
    }

    /** The tenant's live sessions, newest first. */
    List<Row> list(UUID tenant) {
        return rows(em.createNativeQuery(COLUMNS + """
                WHERE tenant_id = :tenant AND status <> 'destroyed' ORDER BY created_at DESC, id
                """, Tuple.class).setParameter("tenant", tenant).getResultList());
    }

    /** A building session's build ended: ready with its environment, or failed with the build's reason. */
    boolean settle(UUID id, SessionStatus status, String storePath, String revision, String error) {
        return em.createNativeQuery("""
                UPDATE sessions SET status = :status, store_path = CAST(:store_path AS text),
                       nixpkgs_revision = CAST(:revision AS text), error = CAST(:error AS text)
                WHERE id = :id AND status = 'building'
                """).setParameter("status", status.id()).setParameter("store_path", storePath)
                .setParameter("revision", revision).setParameter("error", error).setParameter("id", id)
                .executeUpdate() == 1;
    }

    /** A use now: the idle clock starts again. */
    void touch(UUID id) {
        em.createNativeQuery("""
                UPDATE sessions SET last_used_at = now(), expires_at = now() + make_interval(secs => idle_ttl_ms / 1000.0)
                WHERE id = :id AND status <> 'destroyed'
                """).setParameter("id", id).executeUpdate();
    }

    /** Marks the session destroyed; empty when it already was (or is not the tenant's). */
    Optional<Row> destroy(UUID tenant, UUID id) {
        List<?> changed = em.createNativeQuery("""
                UPDATE sessions SET status = 'destroyed', destroyed_at = now()
                WHERE id = :id AND tenant_id = :tenant AND status <> 'destroyed' RETURNING id
                """).setParameter("id", id).setParameter("tenant", tenant).getResultList();
        return changed.isEmpty() ? Optional.empty() : byId(id);
    }

    /** Live sessions whose idle time ran out, locked against a second expiry on another node. */
    List<Row> expired(int limit) {
        return rows(em.createNativeQuery(COLUMNS + """
                WHERE status <> 'destroyed' AND expires_at < now() ORDER BY expires_at LIMIT :limit
                FOR UPDATE SKIP LOCKED
                """, Tuple.class).setParameter("limit", limit).getResultList());
    }

    private List<Row> rows(List<?> tuples) {
        return tuples.stream().map(Tuple.class::cast).map(t -> new Row((UUID) t.get("id"), (UUID) t.get("tenant_id"),
                (UUID) t.get("key_id"), (String) t.get("name"), SessionStatus.byId((String) t.get("status")),
                read((String) t.get("packages"), new TypeReference<List<String>>() { }), (String) t.get("profile"),
                (Boolean) t.get("network"), read((String) t.get("env"), new TypeReference<Map<String, String>>() { }),
                read((String) t.get("writable"), new TypeReference<List<String>>() { }), (String) t.get("agent"),
                (String) t.get("description"), Duration.ofMillis(((Number) t.get("idle_ttl_ms")).longValue()),
                (UUID) t.get("build_job_id"), (UUID) t.get("workspace_id"), (String) t.get("store_path"),
                (String) t.get("nixpkgs_revision"), (String) t.get("error"), time(t, "created_at"),
                time(t, "last_used_at"), time(t, "expires_at"), (String) t.get("host_workspace"))).toList();
    }

    private static OffsetDateTime time(Tuple row, String column) {
        return switch (row.get(column)) {
            case null -> null;
            case OffsetDateTime odt -> odt.withOffsetSameInstant(ZoneOffset.UTC);
            case Instant instant -> instant.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            case Object other -> OffsetDateTime.parse(other.toString());
        };
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private <T> T read(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

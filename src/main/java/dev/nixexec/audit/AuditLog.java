package dev.nixexec.audit;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.JsonColumns;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Appends audit records (in the caller's transaction, so a record exists exactly when the change
 * it describes does) and reads them back, tenant-scoped.
 */
@ApplicationScoped
public class AuditLog {

    private final ObjectMapper json;

    public AuditLog(ObjectMapper json) {
        this.json = json;
    }

    /**
     * What one record says; {@code detail} is free-form; {@code key} names the acting key (null when
     * none acted: a node's record, the start-up's), looked up by {@code key_id} when read.
     */
    @Schema(name = "AuditEntry")
    public record Entry(long id, UUID tenantId, UUID jobId, UUID keyId, String nodeId, String kind,
            Map<String, Object> detail, OffsetDateTime at, KeyRef key) {
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void record(String kind, UUID tenantId, UUID jobId, UUID keyId, String nodeId, Map<String, ?> detail) {
        AuditEvent event = new AuditEvent();
        event.kind = kind;
        event.tenantId = tenantId;
        event.jobId = jobId;
        event.keyId = keyId;
        event.nodeId = nodeId;
        event.at = OffsetDateTime.now(ZoneOffset.UTC);
        event.detail = JsonColumns.write(json, detail);
        event.persist();
    }

    /** Newest first; {@code beforeId} is the keyset cursor. */
    @Transactional
    public List<Entry> list(UUID tenantId, UUID jobId, OffsetDateTime since, Long beforeId, int limit) {
        StringBuilder query = new StringBuilder("tenantId = :tenant");
        var params = new java.util.HashMap<String, Object>();
        params.put("tenant", tenantId);
        if (jobId != null) {
            query.append(" and jobId = :job");
            params.put("job", jobId);
        }
        if (since != null) {
            query.append(" and at >= :since");
            params.put("since", since);
        }
        if (beforeId != null) {
            query.append(" and id < :before");
            params.put("before", beforeId);
        }
        query.append(" order by id desc");
        List<AuditEvent> events = AuditEvent.<AuditEvent>find(query.toString(), params).page(0, limit).list();
        return entries(events);
    }

    /** The kind of every webhook delivery attempt: a job's record, listed with the records outside jobs. */
    public static final String WEBHOOK_DELIVERY = "webhook_delivery";

    /**
     * What the audit page lists: the records that are not a job's, and the webhook deliveries. A
     * literal, so the planner proves the partial indexes of migration V35 (whose predicate it is) apply.
     */
    private static final String OUTSIDE_JOBS = "(job_id IS NULL OR kind = '" + WEBHOOK_DELIVERY + "')";

    /**
     * The tenant's records that are not a job's (sign-ins, keys, tenants and policies, sessions,
     * shells) and its webhook deliveries (each with its job's id), newest first, optionally of one
     * {@code kind}; {@code beforeId} is the keyset cursor. One index scan (V35).
     */
    @Transactional
    public List<Entry> outsideJobs(UUID tenantId, String kind, Long beforeId, int limit) {
        return outsideJobsOf(java.util.Objects.requireNonNull(tenantId), kind, beforeId, limit);
    }

    /** {@link #outsideJobs} over every tenant, for a caller that operates the platform (the caller checks). */
    @Transactional
    public List<Entry> outsideJobsEveryTenant(String kind, Long beforeId, int limit) {
        return outsideJobsOf(null, kind, beforeId, limit);
    }

    /**
     * The kinds of the records {@link #outsideJobs} lists (of every tenant when {@code tenantId} is
     * null), by name: a skip scan, one index probe per kind rather than a read of every record.
     */
    @Transactional
    @SuppressWarnings("unchecked")
    public List<String> kindsOutsideJobs(UUID tenantId) {
        String scope = OUTSIDE_JOBS + (tenantId == null ? "" : " AND tenant_id = :tenant");
        var query = AuditEvent.getEntityManager().createNativeQuery("WITH RECURSIVE kinds(kind) AS ("
                + "SELECT min(kind) FROM audit_events WHERE " + scope
                + " UNION ALL SELECT (SELECT min(kind) FROM audit_events WHERE " + scope + " AND kind > kinds.kind)"
                + " FROM kinds WHERE kinds.kind IS NOT NULL) SELECT kind FROM kinds WHERE kind IS NOT NULL", String.class);
        if (tenantId != null) {
            query.setParameter("tenant", tenantId);
        }
        return query.getResultList();
    }

    @SuppressWarnings("unchecked")
    private List<Entry> outsideJobsOf(UUID tenantId, String kind, Long beforeId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT * FROM audit_events WHERE ").append(OUTSIDE_JOBS);
        var params = new java.util.HashMap<String, Object>();
        if (tenantId != null) {
            sql.append(" AND tenant_id = :tenant");
            params.put("tenant", tenantId);
        }
        if (kind != null) {
            sql.append(" AND kind = :kind");
            params.put("kind", kind);
        }
        if (beforeId != null) {
            sql.append(" AND id < :before");
            params.put("before", beforeId);
        }
        sql.append(" ORDER BY id DESC LIMIT :limit");
        params.put("limit", limit);
        var query = AuditEvent.getEntityManager().createNativeQuery(sql.toString(), AuditEvent.class);
        params.forEach(query::setParameter);
        return entries((List<AuditEvent>) query.getResultList());
    }

    /**
     * The records with their keys named: one statement for every key of the page (a key's name and
     * role never change, so a look-up now reads what they were when the record was written).
     */
    private List<Entry> entries(List<AuditEvent> events) {
        Map<UUID, KeyRef> keys = keys(events.stream().map(e -> e.keyId).filter(java.util.Objects::nonNull).toList());
        return events.stream().map(e -> entry(e, e.keyId == null ? null
                : keys.getOrDefault(e.keyId, new KeyRef(e.keyId, null, "unknown")))).toList();
    }

    /** The keys of these ids, named, in one statement (ids of no key are left out). */
    @Transactional
    @SuppressWarnings("unchecked")
    public Map<UUID, KeyRef> keys(java.util.Collection<UUID> ids) {
        Map<UUID, KeyRef> keys = new java.util.HashMap<>();
        if (ids.isEmpty()) {
            return keys;
        }
        List<Object[]> rows = AuditEvent.getEntityManager()
                .createNativeQuery("SELECT id, name, role FROM api_keys WHERE id = ANY(CAST(:ids AS uuid[]))")
                .setParameter("ids", ids.stream().distinct().map(UUID::toString).toArray(String[]::new)).getResultList();
        for (Object[] row : rows) {
            UUID id = (UUID) row[0];
            keys.put(id, new KeyRef(id, (String) row[1], (String) row[2]));
        }
        return keys;
    }

    private Entry entry(AuditEvent e, KeyRef key) {
        return new Entry(e.id, e.tenantId, e.jobId, e.keyId, e.nodeId, e.kind,
                JsonColumns.read(json, e.detail, new TypeReference<Map<String, Object>>() { }), e.at, key);
    }

    /** Deletes the audit records older than {@code retention}. */
    @Transactional
    public int expire(Duration retention) {
        return AuditEvent.getEntityManager()
                .createNativeQuery("DELETE FROM audit_events WHERE at < now() - make_interval(secs => ?1)")
                .setParameter(1, (double) retention.toSeconds()).executeUpdate();
    }
}

package dev.nixexec.job;

import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reading jobs: one job, its review detail, its events, and a tenant's list page by page. Every
 * read is scoped to the caller's tenant; another tenant's job is "not found".
 */
@ApplicationScoped
public class JobReads {

    /** One page of a list, newest first; {@code nextCursor} is null on the last page. */
    public record Page(List<JobView> items, String nextCursor) {
    }

    /**
     * Filters of a list; null fields do not filter. {@code packageName} matches one of the job's packages
     * exactly; {@code text} is a full-text search over code, stdout, stderr and metadata (websearch
     * syntax, the {@code jobs_search} index); {@code metadata} keeps jobs whose metadata holds every
     * pair as a string value (jsonb containment).
     */
    public record Filter(JobStatus status, String language, OffsetDateTime since, OffsetDateTime until,
            String packageName, UUID keyId, String nodeId, String text, Map<String, String> metadata) {

        public Filter {
            metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        }

        public Filter(JobStatus status, String language, OffsetDateTime since, OffsetDateTime until,
                String packageName, UUID keyId, String nodeId) {
            this(status, language, since, until, packageName, keyId, nodeId, null, Map.of());
        }

        public Filter(JobStatus status, String language, OffsetDateTime since, OffsetDateTime until) {
            this(status, language, since, until, null, null, null);
        }
    }

    /** A job of a list across tenants, with the tenant it belongs to. */
    public record TenantJob(UUID tenantId, JobView job) {
    }

    /** One page of a list across tenants, newest first; {@code nextCursor} is null on the last page. */
    public record TenantPage(List<TenantJob> items, String nextCursor) {
    }

    private final DataSource db;
    private final JobViews views;

    public JobReads(AgroalDataSource db, JobViews views) {
        this.db = db;
        this.views = views;
    }

    /** The job, if it belongs to the caller's tenant. */
    @Transactional
    public JobView get(Caller caller, UUID id) {
        return views.view(owned(caller, id));
    }

    /** What was submitted and how it went, for review; env values only for roles that may see them. */
    @Transactional
    public JobDetail detail(Caller caller, UUID id) {
        return views.detail(owned(caller, id), caller);
    }

    /** The tenant's jobs of this session that have not ended (queued, building, running), in the current transaction. */
    @Transactional(Transactional.TxType.MANDATORY)
    public List<UUID> unfinishedOfSession(UUID tenantId, UUID sessionId) {
        return QueueSql.query(db, "UnfinishedOfSession", Map.of("tenant", tenantId, "session", sessionId),
                rs -> rs.getObject("id", UUID.class));
    }

    /** The newest {@code limit} jobs of one of the caller's tenant's sessions (its build and its commands), newest first. */
    @Transactional
    public List<JobView> ofSession(Caller caller, UUID sessionId, int limit) {
        Map<String, Object> values = Map.of("tenant", caller.tenantId(), "session", sessionId, "limit", limit);
        return QueueSql.query(db, "JobsOfSession", values, rs -> JobRows.job(rs, views.json())).stream().map(views::view).toList();
    }

    /** The job's row, in the current transaction, if it belongs to the caller's tenant. */
    Job owned(Caller caller, UUID id) {
        return find(id).filter(job -> job.tenantId().equals(caller.tenantId())).orElseThrow(() -> Refusal.notFound(id));
    }

    /** The job's row, in the current transaction. */
    public Optional<Job> find(UUID id) {
        return QueueSql.query(db, "JobById", Map.of("id", id), rs -> JobRows.job(rs, views.json())).stream().findFirst();
    }

    /**
     * The job's events after {@code afterSeq}, at most {@link JobEvents#PAGE}, in one query; none
     * for another tenant's job. The {@code result} event comes empty: it stands for the job as it
     * ended, which a follower gets from {@link JobWaits}.
     */
    @Transactional
    public List<JobEvents.Event> events(Caller caller, UUID id, int afterSeq) {
        return JobEvents.after(db, caller.tenantId(), id, afterSeq);
    }

    /**
     * Where a stream resuming after {@code afterSeq} starts: there, unless that is at or past the
     * job's {@code result}, which a stream always ends with: then just before it.
     */
    @Transactional
    public int resumeAfter(Caller caller, UUID id, int afterSeq) {
        return JobEvents.resultSeq(db, caller.tenantId(), id).map(result -> Math.min(afterSeq, result - 1)).orElse(afterSeq);
    }

    @Transactional
    public Page list(Caller caller, Filter filter, int limit, String cursor) {
        return list(caller.tenantId(), filter, limit, cursor);
    }

    /** A tenant's jobs, newest first; which tenant the caller may list is the caller's to check. */
    @Transactional
    public Page list(UUID tenantId, Filter filter, int limit, String cursor) {
        Rows rows = rows(tenantId, filter, limit, cursor);
        return new Page(rows.jobs().stream().map(views::view).toList(), rows.next());
    }

    /** Every tenant's jobs, newest first, in one query: for operators only. */
    @Transactional
    public TenantPage listEveryTenant(Caller caller, Filter filter, int limit, String cursor) {
        if (!caller.role().operates()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "every tenant's jobs are for operator keys");
        }
        Rows rows = rows(null, filter, limit, cursor);
        return new TenantPage(rows.jobs().stream().map(job -> new TenantJob(job.tenantId(), views.view(job))).toList(),
                rows.next());
    }

    private record Rows(List<Job> jobs, String next) {
    }

    /**
     * {@code condition} on the search indexes' expressions, which hold ended jobs only (V40: an
     * entry for each version of every job's row cost every submission, claim and start two GIN
     * insertions), split so each part has an index: ended jobs through the search index, queued
     * ones through {@code jobs_queued}, building and running ones through {@code jobs_active}, the
     * condition evaluated on each of the last two (a tenant's caps bound them; an operator's search
     * across tenants evaluates it on every unfinished job).
     */
    private static String byStatus(String condition) {
        return " AND ((status NOT IN ('queued', 'building', 'running') AND " + condition + ")"
                + " OR (status = 'queued' AND " + condition + ")"
                + " OR (status IN ('building', 'running') AND " + condition + "))";
    }

    /** One query of the filter's conditions, every value a bound parameter; {@code tenantId} null only for {@link #listEveryTenant}. */
    private Rows rows(UUID tenantId, Filter filter, int limit, String cursor) {
        StringBuilder query = new StringBuilder("SELECT * FROM jobs WHERE ");
        query.append(tenantId == null ? "true" : "tenant_id = :tenant");
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("tenant", tenantId);
        params.put("limit", limit + 1);
        if (filter.status() != null) {
            query.append(" AND status = :status");
            params.put("status", filter.status().id());
        }
        if (filter.language() != null) {
            query.append(" AND request #>> '{run,language}' = :language");
            params.put("language", filter.language());
        }
        if (filter.since() != null) {
            query.append(" AND created_at >= :since");
            params.put("since", filter.since());
        }
        if (filter.until() != null) {
            query.append(" AND created_at < :until");
            params.put("until", filter.until());
        }
        if (filter.packageName() != null) {
            query.append(" AND jsonb_exists(request #> '{run,packages}', :package)");
            params.put("package", filter.packageName());
        }
        if (filter.keyId() != null) {
            query.append(" AND key_id = :key");
            params.put("key", filter.keyId());
        }
        if (filter.nodeId() != null) {
            query.append(" AND node_id = :node");
            params.put("node", filter.nodeId());
        }
        if (filter.text() != null) {
            query.append(byStatus("job_search_matches(request #>> '{run,code}', stdout, stderr, metadata, :text)"));
            params.put("text", filter.text());
        }
        if (!filter.metadata().isEmpty()) {
            query.append(byStatus("job_metadata_contains(metadata, :metadata)"));
            params.put("metadata", views.write(new TreeMap<>(filter.metadata())));
        }
        if (cursor != null) {
            JobCursor after = JobCursor.decode(cursor);
            query.append(" AND (created_at < :cursor_at OR (created_at = :cursor_at AND id < :cursor_id))");
            params.put("cursor_at", after.createdAt());
            params.put("cursor_id", after.id());
        }
        query.append(" ORDER BY created_at DESC, id DESC LIMIT :limit");
        List<Job> jobs = SqlFile.run(db, c -> NamedStatement.of(query.toString()).with(params).query(c, rs -> JobRows.job(rs, views.json())));
        String next = null;
        if (jobs.size() > limit) {
            jobs = jobs.subList(0, limit);
            next = JobCursor.after(jobs.get(limit - 1)).encode();
        }
        return new Rows(jobs, next);
    }
}

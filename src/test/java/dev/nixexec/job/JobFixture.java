package dev.nixexec.job;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.testing.Database;
import dev.nixexec.testing.ServiceJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * For database tests of the transitions: tenants and jobs written in the test's transaction, and
 * what the transitions wrote, read back. Jobs are submitted a microsecond apart, in order.
 */
final class JobFixture {

    /** A node of 4 slots, none reserved, no contention window, a 30 s lease, running cap 100. */
    static final JobTransitions.Settings SETTINGS = new JobTransitions.Settings(Duration.ofSeconds(30), 100,
            Duration.ZERO, 0, 4);

    /** What a test asks of a job row. */
    record Row(JobStatus status, String nodeId, int attempt, boolean cancelRequested, String errorCode,
            String errorMessage) {
    }

    final Connection connection;
    final JobTransitions transitions;
    /** The jobs the transitions reported ended, in order. */
    final List<Job> ended = new ArrayList<>();
    private OffsetDateTime clock = JobTransitions.storedNow();

    JobFixture(Database db) {
        this(db.connection(), SETTINGS);
    }

    JobFixture(Database db, JobTransitions.Settings settings) {
        this(db.connection(), settings);
    }

    /** On a connection of the test's own (one it commits, for instance). */
    JobFixture(Connection connection, JobTransitions.Settings settings) {
        this.connection = connection;
        this.transitions = new JobTransitions(settings, Database.dataSource(connection), ServiceJson.mapper(),
                ended::addAll);
    }

    /** A tenant with this policy (JSON). */
    UUID tenant(String policy) throws SQLException {
        UUID id = UUID.randomUUID();
        execute("INSERT INTO tenants (id, name, policy) VALUES (?, ?, CAST(? AS jsonb))", id, "t-" + id, policy);
        return id;
    }

    UUID tenant() throws SQLException {
        return tenant("{}");
    }

    /** A job of the tenant, queued (no local slot offered). */
    UUID submit(UUID tenant) {
        Job job = job(tenant);
        JobTransitions.Inserted inserted = transitions.insert(job, 10_000, "{}", Optional.empty());
        if (!inserted.stored()) {
            throw new IllegalStateException("not stored");
        }
        return job.id();
    }

    /** A job as submitted, not yet stored. */
    Job job(UUID tenant) {
        return job(tenant, (String) null);
    }

    /** A job as submitted with this idempotency key (or none), not yet stored. */
    Job job(UUID tenant, String idempotencyKey) {
        clock = clock.plusNanos(1_000);
        return job(tenant, clock, idempotencyKey);
    }

    /** A job as submitted at {@code createdAt}, not yet stored. */
    static Job job(UUID tenant, OffsetDateTime createdAt, String idempotencyKey) {
        return Job.submitted(UUID.randomUUID(), tenant, null, null, null,
                Submission.of(ExecutionRequest.of("bash", "true").withTimeout(Duration.ofSeconds(10))), idempotencyKey,
                "hash", 3, createdAt, null);
    }

    /** {@code count} jobs of the tenant in one statement, queued in order, older than any submitted after. */
    List<UUID> backlog(UUID tenant, int count) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement insert = connection.prepareStatement("""
                INSERT INTO jobs (id, tenant_id, status, request, metadata, request_hash, max_attempts, created_at,
                                  run_after)
                SELECT gen_random_uuid(), ?, 'queued', '{"run": {"language": "bash", "code": "true", "timeout": 10}}',
                       '{}', 'hash', 3,
                       ? + make_interval(secs => n / 1000000.0), ? + make_interval(secs => n / 1000000.0)
                FROM generate_series(1, ?) AS n
                RETURNING id, created_at
                """)) {
            insert.setObject(1, tenant);
            insert.setObject(2, clock);
            insert.setObject(3, clock);
            insert.setInt(4, count);
            try (ResultSet rs = insert.executeQuery()) {
                List<Object[]> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(new Object[] {rs.getObject("id", UUID.class), rs.getObject("created_at", OffsetDateTime.class)});
                }
                rows.sort((a, b) -> ((OffsetDateTime) a[1]).compareTo((OffsetDateTime) b[1]));
                rows.forEach(r -> ids.add((UUID) r[0]));
            }
        }
        clock = clock.plusNanos(1_000L * (count + 1));
        return ids;
    }

    /** Removes what a test of committed transactions wrote for its tenant. */
    static void removeCommitted(Database database, UUID tenant) throws SQLException {
        try (Connection cleanup = database.open()) {
            JobFixture db = new JobFixture(cleanup, SETTINGS);
            db.execute("DELETE FROM audit_events WHERE tenant_id = ?", tenant);
            db.execute("DELETE FROM jobs WHERE tenant_id = ?", tenant);
            db.execute("DELETE FROM queued_job_counts WHERE tenant_id = ?", tenant);
            db.execute("DELETE FROM tenants WHERE id = ?", tenant);
        }
    }

    Row row(UUID id) throws SQLException {
        try (PreparedStatement q = connection.prepareStatement(
                "SELECT status, node_id, attempt, cancel_requested, error_code, error_message FROM jobs WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet rs = q.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no job " + id);
                }
                return new Row(JobStatus.byId(rs.getString("status")).orElseThrow(), rs.getString("node_id"),
                        rs.getInt("attempt"), rs.getBoolean("cancel_requested"), rs.getString("error_code"),
                        rs.getString("error_message"));
            }
        }
    }

    /** The job's events as {@code kind:data}, in order. */
    List<String> events(UUID id) throws SQLException {
        return strings("SELECT kind || ':' || data FROM job_events WHERE job_id = ? ORDER BY seq", id);
    }

    /** The job's audit records as {@code kind@node detail}, in order ({@code @node} only with one). */
    List<String> audit(UUID id) throws SQLException {
        return strings("SELECT kind || coalesce('@' || node_id, '') || ' ' || detail::text FROM audit_events "
                + "WHERE job_id = ? ORDER BY id", id);
    }

    /** Lets the job's lease run out, as when its node stops heartbeating. */
    void expireLease(UUID id) throws SQLException {
        execute("UPDATE jobs SET lease_until = now() - interval '1 second' WHERE id = ?", id);
    }

    void execute(String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            statement.execute();
        }
    }

    private List<String> strings(String sql, Object arg) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement q = connection.prepareStatement(sql)) {
            q.setObject(1, arg);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}

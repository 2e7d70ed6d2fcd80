package dev.nixexec.job;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.StatementRecorder;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Full-text search and the metadata filter of {@link JobReads}: over code, stdout, stderr and
 * metadata, one query through the {@code jobs_search} index, and never past the tenant (another
 * tenant's job holding the same words never appears). Real jobs, real PostgreSQL.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class JobSearchTest {

    @Inject
    JobViews views;

    @Inject
    AgroalDataSource db;

    /** Reads whose statements {@link StatementRecorder} sees. */
    JobReads reads;

    UUID tenantA;
    UUID tenantB;
    String memberA;
    /** Numbers that only the job's output holds: the code prints them computed. */
    long seed;
    String idA;
    String idB;

    @BeforeEach
    void twoTenantsRunTheSameCode() {
        reads = new JobReads(StatementRecorder.recording(db), views);
        tenantA = UUID.fromString(tenant("search-a"));
        tenantB = UUID.fromString(tenant("search-b"));
        memberA = key(tenantA.toString(), "member");
        String memberB = key(tenantB.toString(), "member");
        seed = ThreadLocalRandom.current().nextLong(100_000, 999_999);
        String code = "s=" + seed + "; echo out$((s * 7)); echo err$((s * 11)) >&2; echo quokka" + seed;
        Map<String, Object> metadata = Map.of("team", "red", "ticket", "tkt" + seed, "note", "<script>x</script>");
        idA = run(memberA, Map.of("language", "bash", "code", code, "metadata", metadata));
        idB = run(memberB, Map.of("language", "bash", "code", code, "metadata", metadata));
    }

    @Test
    void aSearchFindsCodeOutputAndMetadataInOneQueryOfTheCallersTenantOnly() {
        Caller a = new Caller(tenantA, null, Role.MEMBER);
        for (String word : List.of("quokka" + seed, "out" + seed * 7, "err" + seed * 11, "tkt" + seed,
                "QUOKKA" + seed + " red", "\"quokka" + seed + "\"")) {
            List<JobReads.Page> page = new ArrayList<>();
            List<String> statements = StatementRecorder.during(() -> page.add(reads.list(a, text(word), 50, null)));
            assertEquals(List.of(idA), ids(page.get(0)), "'" + word + "' finds tenant A's job and never tenant B's");
            assertEquals(1, statements.size(), "one query: " + statements);
            assertTrue(statements.get(0).contains("job_search_matches") && statements.get(0).contains("tenant_id"),
                    statements.get(0));
        }
        assertEquals(List.of(), ids(reads.list(a, text("quokka" + seed + " -red"), 50, null)), "websearch 'not'");
        assertEquals(List.of(), ids(reads.list(a, text("out" + seed), 50, null)), "the code's seed is not the output's");
        // any text is a search, never SQL or a syntax error
        for (String odd : List.of("' or 1=1 --", "a & | ! (", "<script>", ":*", "\\", "\"")) {
            assertEquals(List.of(), ids(reads.list(a, text(odd + " quokka" + seed + "zz"), 50, null)), odd);
        }
    }

    @Test
    void theMetadataFilterIsContainmentWithBoundValuesInOneQuery() {
        Caller a = new Caller(tenantA, null, Role.AUDITOR);
        List<JobReads.Page> page = new ArrayList<>();
        List<String> statements = StatementRecorder.during(() ->
                page.add(reads.list(a, meta(Map.of("team", "red", "ticket", "tkt" + seed)), 50, null)));
        assertEquals(List.of(idA), ids(page.get(0)));
        assertEquals(1, statements.size(), statements.toString());
        assertTrue(!statements.get(0).contains("tkt" + seed), "the value is bound, not in the SQL: " + statements.get(0));
        assertEquals(List.of(), ids(reads.list(a, meta(Map.of("team", "blue", "ticket", "tkt" + seed)), 50, null)));
        assertEquals(List.of(), ids(reads.list(a, meta(Map.of("ticket", "tkt" + seed + "' or '1'='1")), 50, null)));
        assertEquals(List.of(), ids(reads.list(a, meta(Map.of("ticket\"}, \"x", "tkt" + seed)), 50, null)));
    }

    @Test
    void everyTenantsListIsForOperatorsAndIsOneQuery() {
        JobReads.Filter filter = text("quokka" + seed);
        List<JobReads.TenantPage> page = new ArrayList<>();
        List<String> statements = StatementRecorder.during(() ->
                page.add(reads.listEveryTenant(new Caller(tenantA, null, Role.OPERATOR), filter, 50, null)));
        assertEquals(1, statements.size(), statements.toString());
        assertEquals(Map.of(idA, tenantA, idB, tenantB), Map.of(
                page.get(0).items().get(0).job().id().toString(), page.get(0).items().get(0).tenantId(),
                page.get(0).items().get(1).job().id().toString(), page.get(0).items().get(1).tenantId()));
        assertEquals(2, page.get(0).items().size());
        for (Role role : List.of(Role.ADMIN, Role.AUDITOR, Role.MEMBER)) {
            assertThrows(Refusal.class, () -> reads.listEveryTenant(new Caller(tenantA, null, role), filter, 50, null));
        }
    }

    /**
     * The list's statement as the service sends it (recorded, then explained with its own values)
     * reaches the rows through {@code jobs_search} for a text search and {@code jobs_metadata} for a
     * metadata filter: the functions inline to the indexes' expressions.
     * Explained as a tenant with many jobs would have it: 2,000 more of tenant A's jobs, none holding the
     * word, and fresh statistics, all in the EXPLAIN's own transaction, rolled back. (On the test's few
     * rows the planner rightly reads the tenant's rows through {@code jobs_by_tenant} and filters them.)
     */
    @Test
    void theListsStatementUsesTheSearchAndMetadataIndexes() throws Exception {
        Caller a = new Caller(tenantA, null, Role.MEMBER);
        String word = "quokka" + seed;
        List<String> search = StatementRecorder.during(() -> reads.list(a, text(word), 50, null));
        assertEquals(1, search.size(), search.toString());
        // the condition once per part of the split by status (JobReads.byStatus)
        String plan = explainAmongManyJobs(search.getFirst(), tenantA, word, word, word);
        assertTrue(plan.contains("Index Scan on jobs_search"), search.getFirst() + "\n" + plan);
        Map<String, String> pairs = Map.of("ticket", "tkt" + seed);
        List<String> metadata = StatementRecorder.during(() -> reads.list(a, meta(pairs), 50, null));
        assertEquals(1, metadata.size(), metadata.toString());
        String wanted = "{\"ticket\":\"tkt" + seed + "\"}";
        plan = explainAmongManyJobs(metadata.getFirst(), tenantA, wanted, wanted, wanted);
        assertTrue(plan.contains("Index Scan on jobs_metadata"), metadata.getFirst() + "\n" + plan);
    }

    /**
     * EXPLAIN of a recorded list statement, {@code values} bound to its first placeholders and the
     * page's size (51: a page of 50 and one more to know of a next) to the last;
     * tenant A's job copied 2,000 times first (other code, output and metadata), then ANALYZE.
     */
    private String explainAmongManyJobs(String sql, Object... values) throws Exception {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement copies = c.prepareStatement("""
                        INSERT INTO jobs SELECT (jsonb_populate_record(j, jsonb_build_object('id', gen_random_uuid(),
                            'request', jsonb_set(j.request, '{run,code}', to_jsonb('echo filler ' || n)),
                            'stdout', 'filler ' || n, 'stderr', '',
                            'metadata', jsonb_build_object('n', n), 'idempotency_key', null))).*
                          FROM jobs j, generate_series(1, 2000) n WHERE j.id = ?""")) {
                    copies.setObject(1, UUID.fromString(idA));
                    assertEquals(2000, copies.executeUpdate());
                }
                try (Statement analyze = c.createStatement()) {
                    analyze.execute("ANALYZE jobs");
                }
                try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + sql)) {
                    // the statement's placeholders (it uses no jsonb ? operator: JobReads calls jsonb_exists)
                    long placeholders = sql.chars().filter(ch -> ch == '?').count();
                    assertEquals(values.length + 1, placeholders, "the values and the page's size: " + sql);
                    for (int i = 0; i < values.length; i++) {
                        explain.setObject(i + 1, values[i]);
                    }
                    explain.setInt(values.length + 1, 51);
                    List<String> lines = new ArrayList<>();
                    try (ResultSet rs = explain.executeQuery()) {
                        while (rs.next()) {
                            lines.add(rs.getString(1));
                        }
                    }
                    return String.join("\n", lines);
                }
            } finally {
                c.rollback();
            }
        }
    }

    /**
     * The search indexes hold ended jobs only (V40); a queued job and a running one are found by
     * their code and metadata all the same, through the split by status.
     */
    @Test
    void queuedAndRunningJobsAreFoundToo() throws Exception {
        String held = tenant("search-held", Map.of("max_running", 0));
        String heldMember = key(held, "member");
        Map<String, Object> metadata = Map.of("ticket", "wait" + seed);
        String queued = read(as(heldMember).body(Map.of("language", "bash", "code", "echo marmot" + seed,
                "metadata", metadata)).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        String running = read(as(memberA).body(Map.of("language", "bash", "code", "echo wombat" + seed + "; sleep 60",
                "metadata", metadata)).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        try {
            await("the job to run").atMost(Duration.ofSeconds(60)).until(() -> read(as(memberA).get("/v1/jobs/" + running)
                    .then().statusCode(200).extract().asString(), "status"), "running"::equals);
            Caller a = new Caller(tenantA, null, Role.MEMBER);
            Caller h = new Caller(UUID.fromString(held), null, Role.MEMBER);
            assertEquals(List.of(queued), ids(reads.list(h, text("marmot" + seed), 50, null)), "a queued job's code");
            assertEquals(List.of(queued), ids(reads.list(h, meta(Map.of("ticket", "wait" + seed)), 50, null)));
            assertEquals(List.of(running), ids(reads.list(a, text("wombat" + seed), 50, null)), "a running job's code");
            assertEquals(List.of(running), ids(reads.list(a, meta(Map.of("ticket", "wait" + seed)), 50, null)));
        } finally {
            as(memberA).post("/v1/jobs/" + running + "/cancel").then().statusCode(202);
            as(heldMember).post("/v1/jobs/" + queued + "/cancel").then().statusCode(202);
        }
    }

    @Test
    void restListsTakeQ() {
        List<String> ids = read(as(memberA).get("/v1/jobs?q=quokka" + seed).then().statusCode(200).extract().asString(), "items.id");
        assertEquals(List.of(idA), ids);
    }

    private static JobReads.Filter text(String q) {
        return new JobReads.Filter(null, null, null, null, null, null, null, q, Map.of());
    }

    private static JobReads.Filter meta(Map<String, String> pairs) {
        return new JobReads.Filter(null, null, null, null, null, null, null, null, pairs);
    }

    private static List<String> ids(JobReads.Page page) {
        return page.items().stream().map(j -> j.id().toString()).toList();
    }

    private static String run(String key, Map<String, Object> body) {
        String id = read(as(key).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        as(key).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200)
                .body(json("status", org.hamcrest.Matchers.equalTo("succeeded")));
        return id;
    }
}

package dev.nixexec.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.StatementRecorder;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The audit page's reads ({@link AuditLog#outsideJobs} and the rest) are each one statement over
 * the records, and PostgreSQL plans each as a scan of a V35 partial index, read in the page's order
 * (no sort of the records): the statement as the service sends it, explained with its own values.
 * Which of the four the planner picks on the test's nearly empty table is its choice (their costs
 * tie there); that one applies at all proves the statement states their predicate. A page whose
 * records name keys then names them in one more statement, a look-up of those keys by primary key.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AuditOutsideJobsPlanTest {

    @Inject
    AuditLog audit;

    @Inject
    AgroalDataSource db;

    private static final UUID TENANT = UUID.randomUUID();

    private static final String KEY_LOOKUP = "FROM api_keys WHERE id = ANY(";

    @Test
    void eachShapeOfThePageIsOneScanOfItsIndex() throws Exception {
        QuarkusTransaction.requiringNew().run(() -> audit.record("key_created", TENANT, null, UUID.randomUUID(), "plan-test", Map.of()));
        List<String> keyed = assertPlan(() -> audit.outsideJobs(TENANT, null, null, 101), TENANT, 101);
        assertEquals(2, keyed.size(), "a page naming a key looks its keys up once: " + keyed);
        assertPlan(() -> audit.outsideJobs(TENANT, "webhook_delivery", 5000L, 101), TENANT, "webhook_delivery", 5000L, 101);
        assertPlan(() -> audit.outsideJobsEveryTenant(null, null, 101), 101);
        assertPlan(() -> audit.outsideJobsEveryTenant("ui_signed_in", null, 101), "ui_signed_in", 101);
        assertPlan(() -> audit.kindsOutsideJobs(TENANT), TENANT, TENANT);
        assertPlan(() -> audit.kindsOutsideJobs(null));
    }

    /** The statements of {@code call}: its scan of the records, then at most the look-up of their keys. */
    private List<String> assertPlan(Supplier<List<?>> call, Object... values) throws Exception {
        List<String> statements = StatementRecorder.during(call::get);
        assertTrue(statements.size() == 1 || statements.size() == 2 && statements.get(1).contains(KEY_LOOKUP),
                "one scan of the records, and at most one look-up of their keys: " + statements);
        if (statements.size() == 2) {
            String lookup = explain(statements.get(1), (Object) new String[] {UUID.randomUUID().toString()});
            assertTrue(lookup.contains("Index Scan using api_keys_pkey") && !lookup.contains("Seq Scan"),
                    "the keys by primary key: " + lookup);
        }
        String plan = explain(statements.getFirst(), values);
        List<String> scans = plan.lines().filter(l -> l.contains(" Scan")).toList();
        assertFalse(scans.isEmpty(), plan);
        for (String scan : scans) {
            assertTrue(scan.contains("Scan using audit_outside_jobs") || scan.contains("CTE Scan")
                    || scan.contains("WorkTable Scan"), "a V35 index for " + statements.getFirst() + ":\n" + plan);
        }
        assertFalse(plan.contains("Sort"), "read in order: " + plan);
        return statements;
    }

    /**
     * The plan with sequential and bitmap scans off: a tiny test table would otherwise be read whole
     * or through a bitmap and sorted, whatever the indexes (an ordered index scan is what a large one gets).
     */
    private String explain(String sql, Object... values) throws Exception {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            try (Statement off = c.createStatement()) {
                off.execute("SET LOCAL enable_seqscan = off");
                off.execute("SET LOCAL enable_bitmapscan = off");
            }
            try (PreparedStatement explain = c.prepareStatement("EXPLAIN " + sql)) {
                for (int i = 0; i < values.length; i++) {
                    explain.setObject(i + 1, values[i] instanceof String[] texts ? c.createArrayOf("text", texts) : values[i]);
                }
                List<String> lines = new ArrayList<>();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        lines.add(rs.getString(1));
                    }
                }
                return String.join("\n", lines);
            } finally {
                c.rollback();
            }
        }
    }
}

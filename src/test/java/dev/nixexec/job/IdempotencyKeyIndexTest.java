package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.database.SqlFile;
import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An idempotency key is unique within its tenant, and only keyed jobs are in its index: the jobs
 * without a key (most of them) cost it no entry on any of their row's versions.
 */
@DatabaseTest
class IdempotencyKeyIndexTest {

    private static UUID insert(JobFixture db, UUID tenant, String key) {
        Job job = db.job(tenant, key);
        if (!db.transitions.insert(job, 10_000, "{}", Optional.empty()).stored()) {
            throw new IllegalStateException("not stored");
        }
        return job.id();
    }

    @Test
    void aKeyIsUniqueWithinItsTenantAndKeylessJobsAreNotIndexed(Database database) throws Exception {
        JobFixture db = new JobFixture(database);
        UUID tenant = db.tenant();
        UUID other = db.tenant();
        insert(db, tenant, null);
        insert(db, tenant, null);
        insert(db, tenant, "k-1");
        insert(db, other, "k-1");
        Savepoint before = db.connection.setSavepoint();
        Throwable taken = assertThrows(SqlFile.SqlFailure.class, () -> insert(db, tenant, "k-1")).getCause();
        assertEquals("23505", ((SQLException) taken).getSQLState(), "a second job with the tenant's key");
        db.connection.rollback(before);

        try (var q = db.connection.prepareStatement("""
                SELECT i.indisunique, pg_get_expr(i.indpred, i.indrelid) FROM pg_index i
                JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'jobs_idempotency'""");
                var rs = q.executeQuery()) {
            assertTrue(rs.next(), "the index of keys");
            assertTrue(rs.getBoolean(1));
            assertEquals("(idempotency_key IS NOT NULL)", rs.getString(2));
        }
    }
}

package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The service's requests run on virtual threads and reach PostgreSQL over its Unix socket
 * (junixsocket, through {@link UnixSocketFactory}): many connections opened and used on virtual
 * threads, all waiting for each other in the database (a lock one holds and the others queue for,
 * as submissions of one tenant and claims do), must each be answered. A socket connected on a
 * virtual thread was left to junixsocket's own poller, whose readers were not woken: of 64 such
 * waiters 9 to 43 had even reached the lock after a minute (with junixsocket 2.10.1 and 2.11.1).
 */
@DatabaseTest
class UnixSocketVirtualThreadsTest {

    private static final int WAITERS = 64;

    private static int waiting(Connection holder) throws SQLException {
        try (Statement s = holder.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 172172 AND NOT granted")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void virtualThreadsQueuedOnOneLockAreEachAnswered(Database database) throws Exception {
        try (Connection holder = database.open()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(172172)");
            }
            AtomicInteger answered = new AtomicInteger();
            List<Throwable> failures = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(WAITERS);
            for (int i = 0; i < WAITERS; i++) {
                Thread.ofVirtual().start(() -> {
                    try (Connection own = database.open(); Statement s = own.createStatement()) {
                        own.setAutoCommit(false);
                        // each waits on the socket until the one before it commits
                        s.execute("SELECT pg_advisory_xact_lock(172172), pg_sleep(0.02)");
                        own.commit();
                        answered.incrementAndGet();
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            // every waiter blocked in its read before the lock goes
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // polled, not spun: a query in a tight loop takes the CPU the 64 connections need to open
            while (waiting(holder) < WAITERS && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(WAITERS, waiting(holder), "waiters queued on the lock");
            holder.commit();
            boolean all = done.await(60, TimeUnit.SECONDS);
            assertEquals(List.of(), failures);
            assertTrue(all, answered.get() + " of " + WAITERS + " waiters answered within 60 s");
        }
    }
}

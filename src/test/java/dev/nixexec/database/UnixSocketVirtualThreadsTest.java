package dev.nixexec.database;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The service's requests run on virtual threads and reach PostgreSQL over its Unix socket
 * ({@link UnixSocketFactory}): many connections opened and used on virtual threads, all waiting
 * for each other in the database (a lock one holds and the others queue for, as submissions of one
 * tenant and claims do), must each be answered; and the driver's timed waits (for notifications)
 * must end when something arrives or the time is up, on either kind of thread. With junixsocket's
 * socket (before), a virtual thread was left to junixsocket's own poller, whose readers were not
 * woken: of 64 such waiters 9 to 43 had even reached the lock after a minute.
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

    @Test
    void aNotificationWakesATimedWaitOnAVirtualThread(Database database) throws Exception {
        assertNotificationWakesTimedWait(database, Thread.ofVirtual());
    }

    @Test
    void aNotificationWakesATimedWaitOnAPlatformThread(Database database) throws Exception {
        assertNotificationWakesTimedWait(database, Thread.ofPlatform());
    }

    /**
     * A wait with nothing to hear ends at its timeout and leaves the connection usable; a wait that
     * a notification interrupts ends when it arrives, well before its timeout.
     */
    private static void assertNotificationWakesTimedWait(Database database, Thread.Builder threads) throws Exception {
        try (Connection listener = database.open(); Connection sender = database.open()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN socket_test");
            }
            PGConnection pg = listener.unwrap(PGConnection.class);
            List<Object> results = new ArrayList<>();
            CountDownLatch listening = new CountDownLatch(1);
            Thread waiter = threads.start(() -> {
                try {
                    long start = System.nanoTime();
                    PGNotification[] none = pg.getNotifications(300);
                    long quietMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    listening.countDown();
                    start = System.nanoTime();
                    PGNotification[] heard = pg.getNotifications(30_000);
                    long heardMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    try (Statement s = listener.createStatement(); ResultSet rs = s.executeQuery("SELECT 7")) {
                        rs.next();
                        results.addAll(List.of(none == null ? 0 : none.length, quietMs, heard.length,
                                heard[0].getParameter(), heardMs, rs.getInt(1)));
                    }
                } catch (Throwable e) {
                    results.add(e);
                } finally {
                    listening.countDown();
                }
            });
            assertTrue(listening.await(30, TimeUnit.SECONDS));
            Thread.sleep(200);
            try (Statement s = sender.createStatement()) {
                s.execute("NOTIFY socket_test, 'hello'");
            }
            waiter.join(Duration.ofSeconds(40));
            assertEquals(6, results.size(), "the waiter's results: " + results);
            assertEquals(0, results.get(0), "heard something before anything was sent");
            assertTrue((long) results.get(1) >= 250, "the quiet wait ended after " + results.get(1) + " ms, not ~300");
            assertEquals(1, results.get(2));
            assertEquals("hello", results.get(3));
            assertTrue((long) results.get(4) < 10_000, "the notification was heard after " + results.get(4) + " ms");
            assertEquals(7, results.get(5), "the connection after the waits");
        }
    }
}

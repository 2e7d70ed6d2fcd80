package dev.nixexec.job;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The node's one listening connection: what a notification it cannot use does to it. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class JobNotificationsTest {

    @Inject
    JobNotifications notifications;

    @Inject
    AgroalDataSource dataSource;

    /**
     * A payload that names no job (anyone with the database may send one) is skipped: the listener
     * goes on on the same connection, and the next notification is heard.
     */
    @Test
    void aNotificationNamingNoJobIsSkippedAndTheListenerGoesOn() throws Exception {
        UUID job = UUID.randomUUID();
        AtomicInteger heard = new AtomicInteger();
        try (JobNotifications.Watch watch = notifications.watch(job, heard::incrementAndGet)) {
            notify(JobNotifications.CHANGED, job.toString());
            await().atMost(Duration.ofSeconds(20)).until(() -> heard.get() == 1);
            String before = listening();
            notify(JobNotifications.ENDED, "not-a-job");
            notify(JobNotifications.CHANGED, "not,a,job");
            notify(JobNotifications.CHANGED, job.toString());
            await().atMost(Duration.ofSeconds(20)).until(() -> heard.get() == 2);
            // a listener that failed and started again would have run UNLISTEN or LISTEN since
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertEquals(before, listening()));
        }
    }

    private void notify(String channel, String payload) throws SQLException {
        try (Connection c = dataSource.getConnection(); var s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            s.setString(1, channel);
            s.setString(2, payload);
            s.execute();
        }
    }

    /** The listening backend and when it last ran a statement (its LISTEN). */
    private String listening() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid, query_start, query FROM pg_stat_activity "
                        + "WHERE query LIKE 'LISTEN %' OR query LIKE 'UNLISTEN%' ORDER BY pid")) {
            StringBuilder found = new StringBuilder();
            while (rs.next()) {
                found.append(rs.getInt(1)).append(' ').append(rs.getString(2)).append(' ').append(rs.getString(3)).append('\n');
            }
            return found.toString();
        }
    }
}

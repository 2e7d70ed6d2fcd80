package dev.nixexec.tenant;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * When each key was last used ({@code api_keys.last_used_at}), without a database write per
 * request: a use is noted in memory, and once a minute this node writes the last use of every key
 * it saw used, in one statement. {@code last_used_at} may so lag a key's last use by a minute (and
 * by what a node held when it died); it never goes back, whichever node writes last.
 */
@ApplicationScoped
public class KeyUses {

    private static final Logger LOG = Logger.getLogger(KeyUses.class);

    private final AgroalDataSource db;
    private final Map<UUID, Instant> unwritten = new ConcurrentHashMap<>();

    KeyUses(AgroalDataSource db) {
        this.db = db;
    }

    void used(UUID keyId, Instant at) {
        unwritten.merge(keyId, at, (a, b) -> a.isAfter(b) ? a : b);
    }

    /** Writes the uses noted since the last write; those it could not write are kept for the next. */
    @Scheduled(every = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    public void write() {
        if (unwritten.isEmpty()) {
            return;
        }
        List<UUID> ids = new ArrayList<>();
        List<String> times = new ArrayList<>();
        for (UUID id : List.copyOf(unwritten.keySet())) {
            Instant at = unwritten.remove(id);
            if (at != null) {
                ids.add(id);
                times.add(at.toString());
            }
        }
        try (Connection c = db.getConnection(); PreparedStatement update = c.prepareStatement(
                "UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.at::timestamptz) "
                        + "FROM unnest(?::uuid[], ?::text[]) AS u(id, at) WHERE k.id = u.id")) {
            update.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            update.setArray(2, c.createArrayOf("text", times.toArray()));
            update.executeUpdate();
        } catch (SQLException e) {
            LOG.warnf("could not write when %d keys were last used (kept for the next try): %s", ids.size(), e.getMessage());
            for (int i = 0; i < ids.size(); i++) {
                used(ids.get(i), Instant.parse(times.get(i)));
            }
        }
    }

    /** Before the database closes ({@code EmbeddedDatabaseShutdown} observes last). */
    void stop(@Observes ShutdownEvent event) {
        write();
    }
}

package dev.nixexec.worker;

import dev.nixexec.database.SqlFile;
import dev.nixexec.nix.EnvironmentsAhead;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The {@code node_environments} table: each worker's environments built ahead, for {@code GET /v1/nodes}. */
@ApplicationScoped
public class NodeEnvironments {

    /** One environment of one node as {@code GET /v1/nodes} shows it. */
    @Schema(name = "NodeEnvironment")
    public record Entry(String name, String source, String status, String detail, OffsetDateTime updatedAt) {
    }

    private static final SqlFile SQL = SqlFile.of(NodeEnvironments.class, "node-environments.sql");

    private final DataSource db;

    /** On the service's DataSource, or a database test's own transaction's. */
    public NodeEnvironments(DataSource db) {
        this.db = db;
    }

    /** Replaces the node's rows with {@code progress}, and drops those of nodes no longer listed, in one transaction. */
    public void write(String nodeId, List<EnvironmentsAhead.Progress> progress) {
        Map<String, Object> rows = Map.of("node", nodeId,
                "names", progress.stream().map(EnvironmentsAhead.Progress::name).toArray(String[]::new),
                "sources", progress.stream().map(p -> p.source().name().toLowerCase(Locale.ROOT)).toArray(String[]::new),
                "statuses", progress.stream().map(p -> p.status().name().toLowerCase(Locale.ROOT)).toArray(String[]::new),
                "details", progress.stream().map(EnvironmentsAhead.Progress::detail).toArray(String[]::new),
                // an instant's ISO text, which PostgreSQL reads as a timestamptz
                "updated_at", progress.stream().map(p -> p.updatedAt().toString()).toArray(String[]::new));
        SqlFile.run(db, c -> {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                SQL.statement("Delete").with(rows).update(c);
                SQL.statement("Insert").with(rows).update(c);
                c.commit();
                return null;
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        });
    }

    /** Every node's entries, by node id. */
    public Map<String, List<Entry>> byNode() {
        Map<String, List<Entry>> nodes = new HashMap<>();
        SQL.query(db, "All", Map.of(), rows -> Map.entry(rows.getString("node_id"), new Entry(rows.getString("name"),
                rows.getString("source"), rows.getString("status"), rows.getString("detail"),
                rows.getObject("updated_at", OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC))))
                .forEach(e -> nodes.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue()));
        return nodes;
    }
}

package dev.nixexec.worker;

import dev.nixexec.nix.EnvironmentsAhead;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
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

    private final DataSource db;

    @Inject
    public NodeEnvironments(AgroalDataSource db) {
        this((DataSource) db);
    }

    NodeEnvironments(DataSource db) {
        this.db = db;
    }

    /** Replaces the node's rows with {@code progress}, and drops those of nodes no longer listed. */
    public void write(String nodeId, List<EnvironmentsAhead.Progress> progress) throws SQLException {
        try (Connection c = db.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                try (PreparedStatement delete = c.prepareStatement(
                        "DELETE FROM node_environments WHERE node_id = ? OR node_id NOT IN (SELECT id FROM nodes)")) {
                    delete.setString(1, nodeId);
                    delete.executeUpdate();
                }
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO node_environments "
                        + "(node_id, name, source, status, detail, updated_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                    for (EnvironmentsAhead.Progress p : progress) {
                        insert.setString(1, nodeId);
                        insert.setString(2, p.name());
                        insert.setString(3, p.source().name().toLowerCase(Locale.ROOT));
                        insert.setString(4, p.status().name().toLowerCase(Locale.ROOT));
                        insert.setString(5, p.detail());
                        insert.setTimestamp(6, Timestamp.from(p.updatedAt()));
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        }
    }

    /** Every node's entries, by node id. */
    public Map<String, List<Entry>> byNode() throws SQLException {
        Map<String, List<Entry>> nodes = new HashMap<>();
        try (Connection c = db.getConnection();
                PreparedStatement select = c.prepareStatement("SELECT node_id, name, source, status, detail, updated_at "
                        + "FROM node_environments ORDER BY node_id, source DESC, name");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                nodes.computeIfAbsent(rows.getString("node_id"), k -> new ArrayList<>()).add(new Entry(
                        rows.getString("name"), rows.getString("source"), rows.getString("status"),
                        rows.getString("detail"),
                        rows.getTimestamp("updated_at").toInstant().atOffset(ZoneOffset.UTC)));
            }
        }
        return nodes;
    }
}

package dev.nixexec.nix;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The package search index in PostgreSQL ({@code package_indexes}, {@code package_index_entries}),
 * on the current transaction's plain JDBC connection. A pin's row is the claim that one node lists
 * it: {@link #claim} is one insert that only one node wins (or takes over from a node that stopped
 * or failed long enough ago), and {@link #ready} turns it visible with its entries.
 */
@ApplicationScoped
public class PackageIndexStore {

    /** A pin's index as stored. */
    public record State(String status, String nodeId, OffsetDateTime startedAt, String error, int packages) {

        public boolean ready() {
            return status.equals("ready");
        }
    }

    private static final String CLAIM = """
            INSERT INTO package_indexes (nar_hash, revision, status, node_id) VALUES (?, ?, 'building', ?)
            ON CONFLICT (nar_hash) DO UPDATE SET status = 'building', node_id = EXCLUDED.node_id, started_at = now(),
                finished_at = NULL, error = NULL
            WHERE package_indexes.status = 'building' AND package_indexes.started_at < now() - make_interval(secs => ?)
               OR package_indexes.status = 'failed' AND package_indexes.finished_at < now() - make_interval(secs => ?)
            RETURNING nar_hash""";

    /**
     * Exact name or attribute first, then a name or attribute that starts with the query, then one
     * that contains it, then a description that does; shorter attributes first within each.
     */
    private static final String SEARCH = """
            SELECT attribute, version, description FROM package_index_entries
            WHERE nar_hash = ? AND (CAST(? AS text) IS NULL OR package_set = CAST(? AS text))
              AND (attribute ILIKE ? OR description ILIKE ?)
            ORDER BY CASE WHEN lower(name) = lower(?) OR lower(attribute) = lower(?) THEN 0
                          WHEN name ILIKE ? OR attribute ILIKE ? THEN 1
                          WHEN attribute ILIKE ? THEN 2
                          ELSE 3 END,
                     length(attribute), attribute
            LIMIT ?""";

    private final DataSource dataSource;

    @Inject
    public PackageIndexStore(AgroalDataSource dataSource) {
        this((DataSource) dataSource);
    }

    /** On any DataSource: a database test passes its own transaction's. */
    public PackageIndexStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Optional<State> state(String narHash) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT status, node_id, started_at, error, coalesce(packages, 0) FROM package_indexes WHERE nar_hash = ?")) {
            s.setString(1, narHash);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(new State(r.getString(1), r.getString(2),
                        r.getObject(3, OffsetDateTime.class), r.getString(4), r.getInt(5))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the package index", e);
        }
    }

    /** The pin whose index was finished last: what a node that pins nothing itself (an API node) searches. */
    public Optional<String> newestReady() {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT nar_hash FROM package_indexes WHERE status = 'ready' ORDER BY finished_at DESC LIMIT 1");
                ResultSet r = s.executeQuery()) {
            return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the package index", e);
        }
    }

    /**
     * Takes the listing of this pin for {@code node}: true when no node has it, or the one that had
     * it started longer than {@code stale} ago, or it failed longer than {@code retry} ago.
     */
    public boolean claim(String narHash, String revision, String node, Duration stale, Duration retry) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(CLAIM)) {
            s.setString(1, narHash);
            s.setString(2, revision);
            s.setString(3, node);
            s.setLong(4, stale.toSeconds());
            s.setLong(5, retry.toSeconds());
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot claim the package index", e);
        }
    }

    public void insert(String narHash, List<PackageIndexEntry> entries) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO package_index_entries (nar_hash, attribute, package_set, name, version, description) "
                        + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            for (PackageIndexEntry e : entries) {
                s.setString(1, narHash);
                s.setString(2, e.attribute());
                s.setString(3, e.packageSet());
                s.setString(4, e.name());
                s.setString(5, e.version());
                s.setString(6, e.description());
                s.addBatch();
            }
            s.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store the package index", e);
        }
    }

    /**
     * Marks the pin's index ready (if {@code node} still holds it), with its count; the indexes of
     * pins last listed more than a day ago go. False when another node took the listing over.
     */
    public boolean ready(String narHash, String node) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("""
                        UPDATE package_indexes SET status = 'ready', finished_at = now(),
                            packages = (SELECT count(*) FROM package_index_entries WHERE nar_hash = ?)
                        WHERE nar_hash = ? AND node_id = ? AND status = 'building'""");
                PreparedStatement old = c.prepareStatement(
                        "DELETE FROM package_indexes WHERE nar_hash <> ? AND started_at < now() - interval '1 day'")) {
            s.setString(1, narHash);
            s.setString(2, narHash);
            s.setString(3, node);
            if (s.executeUpdate() == 0) {
                return false;
            }
            old.setString(1, narHash);
            old.executeUpdate();
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store the package index", e);
        }
    }

    /** Records why listing the pin failed, so searches can say so; retried after a while. */
    public void failed(String narHash, String node, String error) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "UPDATE package_indexes SET status = 'failed', finished_at = now(), error = ? "
                        + "WHERE nar_hash = ? AND node_id = ? AND status = 'building'")) {
            s.setString(1, error);
            s.setString(2, narHash);
            s.setString(3, node);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store the package index", e);
        }
    }

    /** The versions of these attributes in the pin's index, by attribute; one query. Absent or blank: left out. */
    public java.util.Map<String, String> versions(String narHash, List<String> attributes) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT attribute, version FROM package_index_entries WHERE nar_hash = ? AND attribute = ANY (?) "
                        + "AND version <> ''")) {
            s.setString(1, narHash);
            s.setArray(2, c.createArrayOf("text", attributes.toArray()));
            java.util.Map<String, String> versions = new java.util.HashMap<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    versions.put(r.getString(1), r.getString(2));
                }
            }
            return versions;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the package index", e);
        }
    }

    /**
     * The packages of the pin whose attribute or description contains {@code query} (any case),
     * only of {@code packageSet} when given ({@code ""}: top-level ones), best first. One query.
     */
    public List<PackageHit> search(String narHash, String query, Optional<String> packageSet, int limit) {
        String literal = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        String contains = "%" + literal + "%";
        String prefix = literal + "%";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(SEARCH)) {
            s.setString(1, narHash);
            s.setString(2, packageSet.orElse(null));
            s.setString(3, packageSet.orElse(null));
            s.setString(4, contains);
            s.setString(5, contains);
            s.setString(6, query);
            s.setString(7, query);
            s.setString(8, prefix);
            s.setString(9, prefix);
            s.setString(10, contains);
            s.setInt(11, limit);
            List<PackageHit> hits = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    hits.add(new PackageHit(r.getString(1), r.getString(2), r.getString(3)));
                }
            }
            return hits;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot search the package index", e);
        }
    }
}

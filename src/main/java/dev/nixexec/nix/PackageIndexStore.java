package dev.nixexec.nix;

import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The package search index in PostgreSQL ({@code package_indexes}, {@code package_index_entries}):
 * the named statements of {@code package-index.sql} on the current transaction's connection. A pin's row is the claim that one node lists
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

    private static final SqlFile SQL = SqlFile.of(PackageIndexStore.class, "package-index.sql");

    private final DataSource dataSource;

    /** On the service's DataSource, or a database test's own transaction's. */
    public PackageIndexStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Optional<State> state(String narHash) {
        return SQL.query(dataSource, "State", Map.of("nar_hash", narHash), r -> new State(r.getString("status"),
                r.getString("node_id"), r.getObject("started_at", OffsetDateTime.class), r.getString("error"),
                r.getInt("packages"))).stream().findFirst();
    }

    /** The pin whose index was finished last: what a node that pins nothing itself (an API node) searches. */
    public Optional<String> newestReady() {
        return SQL.query(dataSource, "NewestReady", Map.of(), r -> r.getString("nar_hash")).stream().findFirst();
    }

    /**
     * Takes the listing of this pin for {@code node}: true when no node has it, or the one that had
     * it started longer than {@code stale} ago, or it failed longer than {@code retry} ago.
     */
    public boolean claim(String narHash, String revision, String node, Duration stale, Duration retry) {
        return !SQL.query(dataSource, "Claim", Map.of("nar_hash", narHash, "revision", revision, "node", node,
                "stale", stale.toSeconds(), "retry", retry.toSeconds()), r -> true).isEmpty();
    }

    public void insert(String narHash, List<PackageIndexEntry> entries) {
        SQL.update(dataSource, "Insert", Map.of("nar_hash", narHash,
                "attributes", entries.stream().map(PackageIndexEntry::attribute).toArray(String[]::new),
                "package_sets", entries.stream().map(PackageIndexEntry::packageSet).toArray(String[]::new),
                "names", entries.stream().map(PackageIndexEntry::name).toArray(String[]::new),
                "versions", entries.stream().map(PackageIndexEntry::version).toArray(String[]::new),
                "descriptions", entries.stream().map(PackageIndexEntry::description).toArray(String[]::new)));
    }

    /**
     * Marks the pin's index ready (if {@code node} still holds it), with its count; the indexes of
     * pins last listed more than a day ago go. False when another node took the listing over.
     */
    public boolean ready(String narHash, String node) {
        if (SQL.update(dataSource, "Ready", Map.of("nar_hash", narHash, "node", node)) == 0) {
            return false;
        }
        SQL.update(dataSource, "DeleteOld", Map.of("nar_hash", narHash));
        return true;
    }

    /** Records why listing the pin failed, so searches can say so; retried after a while. */
    public void failed(String narHash, String node, String error) {
        SQL.update(dataSource, "Failed", NamedStatement.values().set("error", error).set("nar_hash", narHash)
                .set("node", node).map());
    }

    /** The versions of these attributes in the pin's index, by attribute; one query. Absent or blank: left out. */
    public Map<String, String> versions(String narHash, List<String> attributes) {
        return SQL.query(dataSource, "Versions", Map.of("nar_hash", narHash,
                "attributes", attributes.toArray(String[]::new)), r -> Map.entry(r.getString("attribute"),
                r.getString("version"))).stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /**
     * The packages of the pin whose attribute or description contains {@code query} (any case),
     * only of {@code packageSet} when given ({@code ""}: top-level ones), best first. One query.
     */
    public List<PackageHit> search(String narHash, String query, Optional<String> packageSet, int limit) {
        String literal = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
        return SQL.query(dataSource, "Search", NamedStatement.values().set("nar_hash", narHash)
                .set("package_set", packageSet.orElse(null)).set("contains", "%" + literal + "%")
                .set("prefix", literal + "%").set("query", query).set("limit", limit).map(),
                r -> new PackageHit(r.getString("attribute"), r.getString("version"), r.getString("description")));
    }
}

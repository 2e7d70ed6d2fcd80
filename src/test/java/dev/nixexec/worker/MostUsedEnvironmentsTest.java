package dev.nixexec.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.nix.EnvironmentsAhead;
import dev.nixexec.nix.MostUsedEnvironments;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The most used environments of the last day, from the real jobs table: jobs counted by what they
 * asked for, the same package list in any order one environment, jobs older than the window left
 * out, names refused by today's policy left out; and each node's environments built ahead as the
 * node list reads them.
 */
@DatabaseTest
class MostUsedEnvironmentsTest {

    @Test
    void theMostRequestedEnvironmentsOfTheLastDayComeFirst(Database database) throws Exception {
        // the counts are the fleet's: only this test's jobs, in this transaction (rolled back at its end)
        try (PreparedStatement clear = database.connection().prepareStatement("DELETE FROM jobs")) {
            clear.executeUpdate();
        }
        UUID tenant = tenant(database);
        jobs(database, tenant, 3, "python", "[\"python3Packages.numpy\", \"jq\"]", false, Duration.ofHours(1));
        jobs(database, tenant, 2, "python", "[\"jq\", \"python3Packages.numpy\", \"jq\"]", false, Duration.ofHours(2));
        jobs(database, tenant, 4, "bash", "[\"curl\"]", true, Duration.ofMinutes(5));
        jobs(database, tenant, 1, "bash", "[]", false, Duration.ofMinutes(5));
        jobs(database, tenant, 9, "node", "[\"typescript\"]", false, Duration.ofHours(30));
        jobs(database, tenant, 8, "ruby", "[\"secretthing\"]", false, Duration.ofHours(1));

        List<MostUsedEnvironments.Demand> demand = new EnvironmentDemand(database.dataSource(), new ObjectMapper())
                .recent(MostUsedUpkeep.WINDOW);
        PackagePolicy policy = new PackagePolicy(List.of("secretthing"), Optional.empty());
        List<MostUsedEnvironments.Chosen> top = MostUsedEnvironments.choose(demand, 2, policy);

        assertEquals(List.of("python jq python3Packages.numpy", "bash curl (network)"),
                top.stream().map(MostUsedEnvironments.Chosen::name).toList());
        assertEquals(List.of(5L, 4L), top.stream().map(MostUsedEnvironments.Chosen::jobs).toList());
        assertEquals(3, MostUsedEnvironments.choose(demand, 10, policy).size(), "the node job is older than a day");
        assertEquals(List.of(), MostUsedEnvironments.choose(demand, 0, policy));
    }

    @Test
    void theNodeListShowsEachLiveNodesEnvironments(Database database) throws Exception {
        NodeEnvironments table = new NodeEnvironments(database.dataSource());
        try (PreparedStatement node = database.connection().prepareStatement(
                "INSERT INTO nodes (id, role, concurrency) VALUES ('env-node-a', 'worker', 2)")) {
            node.executeUpdate();
        }
        Instant now = Instant.now();
        table.write("env-node-gone", List.of(new EnvironmentsAhead.Progress("bash", EnvironmentsAhead.Source.PREBUILD,
                EnvironmentsAhead.Status.BUILT, "/nix/store/x", now)));
        table.write("env-node-a", List.of(
                new EnvironmentsAhead.Progress("python", EnvironmentsAhead.Source.PREBUILD,
                        EnvironmentsAhead.Status.BUILDING, "", now),
                new EnvironmentsAhead.Progress("bash jq", EnvironmentsAhead.Source.MOST_USED,
                        EnvironmentsAhead.Status.FAILED, "unknown_package: unknown package 'jq'", now)));
        table.write("env-node-a", List.of(new EnvironmentsAhead.Progress("python", EnvironmentsAhead.Source.PREBUILD,
                EnvironmentsAhead.Status.BUILT, "/nix/store/y", now)));

        Map<String, List<NodeEnvironments.Entry>> nodes = table.byNode();
        assertEquals(List.of("env-node-a"), nodes.keySet().stream().filter(k -> k.startsWith("env-node-"))
                .collect(Collectors.toList()), "a node that is not in the node list keeps no rows");
        NodeEnvironments.Entry python = nodes.get("env-node-a").getFirst();
        assertEquals(1, nodes.get("env-node-a").size(), "a write replaces the node's rows");
        assertEquals(List.of("python", "prebuild", "built", "/nix/store/y"),
                List.of(python.name(), python.source(), python.status(), python.detail()));
    }

    private static UUID tenant(Database database) throws Exception {
        UUID id = UUID.randomUUID();
        try (PreparedStatement insert = database.connection().prepareStatement(
                "INSERT INTO tenants (id, name) VALUES (?, ?)")) {
            insert.setObject(1, id);
            insert.setString(2, "most-used-" + id);
            insert.executeUpdate();
        }
        return id;
    }

    private static void jobs(Database database, UUID tenant, int count, String language, String packages,
            boolean network, Duration ago) throws Exception {
        for (int i = 0; i < count; i++) {
            try (PreparedStatement insert = database.connection().prepareStatement("INSERT INTO jobs "
                    + "(id, tenant_id, status, request, created_at) VALUES (?, ?, 'succeeded', jsonb_build_object('run', "
                    + "jsonb_build_object('language', CAST(? AS text), 'code', '', 'packages', CAST(? AS jsonb), 'timeout', 1, "
                    + "'network', CAST(? AS boolean))), "
                    + "now() - make_interval(secs => ?))")) {
                insert.setObject(1, UUID.randomUUID());
                insert.setObject(2, tenant);
                insert.setString(3, language);
                insert.setString(4, packages);
                insert.setBoolean(5, network);
                insert.setDouble(6, ago.toSeconds());
                insert.executeUpdate();
            }
        }
    }
}

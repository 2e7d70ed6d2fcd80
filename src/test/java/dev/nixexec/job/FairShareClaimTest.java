package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The claim rule on the real database: while another tenant contends (a job waiting, or one
 * submitted within the window), a tenant holds at most its share of a node (2 slots, 1 reserved),
 * on each node. The claim statement runs as the service runs it, with the window given here.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class FairShareClaimTest {

    private static final int SLOTS = 2;
    private static final int RESERVED = 1;

    @Inject
    JobService jobs;

    @Inject
    Tenants tenants;

    @Inject
    AgroalDataSource db;

    private Caller tenant(String name) {
        return new Caller(tenants.create(name + "-" + UUID.randomUUID().toString().substring(0, 8), null, null).id, null,
                Role.MEMBER);
    }

    private UUID submit(Caller caller) {
        return jobs.submit(caller, new JobService.Submission("bash", "true", List.of(), Map.of(), "", Optional.empty(),
                false, Map.of()), null).job().id();
    }

    /** The ids JobQueue.CLAIM hands node {@code node} when it has {@code free} free slots of {@link #SLOTS}. */
    private List<UUID> claim(String node, int free, double windowSeconds) throws Exception {
        Object[] values = {null, node, free, 1000, 30.0, SLOTS - RESERVED, windowSeconds};
        Matcher numbered = Pattern.compile("\\?(\\d)").matcher(JobQueue.CLAIM);
        List<Object> bound = new ArrayList<>();
        while (numbered.find()) {
            bound.add(values[Integer.parseInt(numbered.group(1))]);
        }
        List<UUID> ids = new ArrayList<>();
        try (Connection c = db.getConnection();
                PreparedStatement claim = c.prepareStatement(JobQueue.CLAIM.replaceAll("\\?(\\d)", "?"))) {
            for (int i = 0; i < bound.size(); i++) {
                claim.setObject(i + 1, bound.get(i));
            }
            try (ResultSet rs = claim.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return ids;
    }

    private static long mine(List<UUID> claimed, Set<UUID> ids) {
        return claimed.stream().filter(ids::contains).count();
    }

    /** Ends this test's jobs, so that no later claim sees them waiting or held. */
    private void end(Caller... callers) throws Exception {
        try (Connection c = db.getConnection();
                PreparedStatement end = c.prepareStatement("UPDATE jobs SET status = 'cancelled', finished_at = now(), "
                        + "lease_until = NULL WHERE tenant_id = ? AND status IN ('queued', 'building', 'running')")) {
            for (Caller caller : callers) {
                end.setObject(1, caller.tenantId());
                end.executeUpdate();
            }
        }
    }

    @Test
    void aTenantTakesOnlyItsShareOfEachNodeWhileAnotherSubmittedLately() throws Exception {
        Caller a = tenant("flood");
        Caller b = tenant("recent");
        jobs.cancel(b, submit(b)); // b submitted a job a moment ago; it is over
        Set<UUID> flood = Set.of(submit(a), submit(a), submit(a), submit(a));

        // free slots are not the limit here: the share is
        assertEquals(1, mine(claim("share-node-1", 10, 300), flood), "a holds its share of node 1");
        assertEquals(0, mine(claim("share-node-1", 10, 300), flood), "node 1's last slot is left to b");
        assertEquals(1, mine(claim("share-node-2", 10, 300), flood), "the share is per node");
        end(a, b);
    }

    @Test
    void aWaitingJobOfAnotherTenantKeepsTheLastSlotFree() throws Exception {
        Caller a = tenant("holder");
        Caller b = tenant("waiter");
        Set<UUID> flood = Set.of(submit(a), submit(a), submit(a));
        UUID waiting = submit(b);
        List<UUID> claimed = claim("wait-node", 10, 0);
        assertEquals(1, mine(claimed, flood), "a holds its share while b's job waits");
        assertEquals(1, mine(claimed, Set.of(waiting)), "b's job is claimed");
        end(a, b);
    }
}

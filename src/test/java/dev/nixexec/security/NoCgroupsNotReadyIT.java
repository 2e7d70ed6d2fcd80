package dev.nixexec.security;

import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.worker.WorkerPool;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Was a finding: on a host where no per-run cgroup can be made, a worker stayed ready and ran jobs
 * with rlimits only (a job forked 1,000 processes under a limit of 256). Now, without the operator's
 * explicit opt-out, such a worker is not ready and claims nothing. Cgroups are made unavailable for
 * this instance only, by a cgroup parent outside the cgroup filesystem (as a mistyped setting would).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(NoCgroupsNotReadyIT.NoCgroups.class)
class NoCgroupsNotReadyIT {

    static final Path PARENT = Path.of("target", "no-cgroups", "nix-exec").toAbsolutePath();

    public static class NoCgroups implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // an earlier run of the code before the fix made it, as a plain directory
            try (var left = Files.walk(PARENT.getParent())) {
                left.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (java.io.IOException absent) {
                // nothing to clear
            }
            return Map.of("nixexec.sandbox.cgroup-parent", PARENT.toString());
        }
    }

    @Inject
    WorkerPool workers;

    @Inject
    JobService jobs;

    @Inject
    FleetNodes queue;

    @Inject
    JobTransitions transitions;

    @Inject
    Tenants tenants;

    @Test
    void readinessIsDownForTheLimitsAndShowsNoPaths() {
        String body = given().get("/q/health/ready").then().statusCode(503)
                .body(json("status", equalTo("DOWN")))
                .body(json("checks.find { it.name == 'execution-host' }.data.nix", equalTo("ok")))
                .body(json("checks.find { it.name == 'execution-host' }.data.sandbox", equalTo("unavailable")))
                .body(json("checks.find { it.name == 'execution-host' }.data.limits", equalTo("none")))
                .extract().asString();
        // why is in the operator's log; anyone may read readiness
        assertFalse(body.contains("/"), body);
    }

    @Test
    void theWorkerClaimsNoJob() {
        assertTrue(workers.take().isEmpty(), "a local submission was offered a slot");
        UUID tenant = tenants.create("nocg-" + UUID.randomUUID().toString().substring(0, 8), null, null).id;
        UUID id = jobs.submit(new Caller(tenant, null, Role.MEMBER), Submission.of(ExecutionRequest.of("bash", "true")), null).job().id();
        // still queued for a node that can bound it: another claimer gets it
        List<ClaimedJob> claimed = transitions.claim("node-with-cgroups", 100);
        assertTrue(claimed.stream().anyMatch(j -> j.id().equals(id)), "the job was taken by the node without cgroups");
        assertFalse(queue.nodes().stream().anyMatch(n -> n.id().equals(workers.nodeId())), "the node joined as a worker");
    }

    @Test
    void aParentOutsideTheCgroupFilesystemIsNotMade() {
        assertFalse(Files.exists(PARENT), "a plain directory stood in for a cgroup");
    }
}

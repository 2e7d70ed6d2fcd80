package dev.nixexec.ui;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The audit review pages over HTTP with real jobs: the fleet page of an operator shows every
 * tenant's running work with a tenant filter; a job's page shows the limits asked for beside the usage.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AuditReviewTest {

    @Test
    void anOperatorsFleetPageShowsEveryTenantsRunningJobsWithATenantFilter() throws Exception {
        String tenantA = tenant("fleet-a");
        String tenantB = tenant("fleet-b");
        String memberB = key(tenantB, "member");
        String job = read(as(memberB).body(Map.of("language", "bash", "code", "echo started; sleep 120"))
                .post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        try {
            dev.nixexec.testing.Api.awaitEvent(memberB, job, "started");
            AuditUiTest.Browser operator = AuditUiTest.signIn(ADMIN);
            String every = operator.request().get("/ui/fleet").then().statusCode(200).extract().asString();
            assertTrue(every.contains("href=\"/ui/jobs/" + job + "?tenant=" + tenantB + "\""), every);
            assertTrue(every.contains("name=\"tenant\""), "an operator has a tenant filter");
            assertTrue(every.contains("Every tenant, recent"), every);
            String onlyB = operator.request().queryParam("tenant", tenantB).get("/ui/fleet").then().statusCode(200)
                    .extract().asString();
            assertTrue(onlyB.contains(job), onlyB);
            assertTrue(onlyB.contains("Tenant fleet-b-"), onlyB);
            String onlyA = operator.request().queryParam("tenant", tenantA).get("/ui/fleet").then().statusCode(200)
                    .extract().asString();
            assertFalse(onlyA.contains(job), onlyA);
            operator.request().queryParam("tenant", "nonsense").get("/ui/fleet").then().statusCode(404);

            // an auditor sees its own tenant's, never another's, and the tenant parameter changes nothing
            String ownAuditor = AuditUiTest.signIn(key(tenantB, "auditor")).request().get("/ui/fleet").then()
                    .statusCode(200).extract().asString();
            assertTrue(ownAuditor.contains("href=\"/ui/jobs/" + job + "\""), ownAuditor);
            assertFalse(ownAuditor.contains("name=\"tenant\""));
            String otherAuditor = AuditUiTest.signIn(key(tenantA, "auditor")).request().queryParam("tenant", tenantB)
                    .get("/ui/fleet").then().statusCode(200).extract().asString();
            assertFalse(otherAuditor.contains(job), otherAuditor);
        } finally {
            as(memberB).post("/v1/jobs/" + job + "/cancel").then().statusCode(202);
        }
    }

    @Test
    void aMemoryKillShowsTheMemoryAskedForBesideThePeakUsed() {
        String tenantId = tenant("limits");
        String member = key(tenantId, "member");
        String id = AuditUiTest.run(member, Map.of("language", "python", "limits", Map.of("memory", "64MiB"),
                "code", "b = bytearray(512 * 1024 * 1024)\nprint(len(b))"));
        assertEquals("memory", read(as(member).get("/v1/jobs/" + id).then().statusCode(200).extract().asString(),
                "limit_hit"));
        String page = AuditUiTest.signIn(key(tenantId, "auditor")).request().get("/ui/jobs/" + id).then().statusCode(200)
                .extract().asString();
        assertTrue(page.contains("id=\"limits\""), "the page has a table of limits and usage");
        String limits = page.substring(page.indexOf("id=\"limits\""), page.indexOf("</table>", page.indexOf("id=\"limits\"")));
        assertTrue(limits.contains("<tr class=\"hit\"><td>Memory</td><td class=\"over\">64.0 MiB</td>"), limits);
        assertTrue(limits.contains("peak · reached"), limits);
        assertTrue(limits.contains("<td>CPU time</td><td>default</td>"), limits);
    }
}

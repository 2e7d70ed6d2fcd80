package dev.nixexec.ui;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static dev.nixexec.ui.AuditUiTest.run;
import static dev.nixexec.ui.AuditUiTest.signIn;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The audit UI's investigation tools over HTTP with real jobs: the operator's view across tenants
 * (and no such view for other roles), full-text search, the metadata filter, exports, the audit log
 * page and a job's artifacts, each with its hostile input rendered inert.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AuditInvestigationsTest {

    /** A 1x1 PNG. */
    static final String PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    String tenantA;
    String tenantB;
    String memberA;
    String auditorA;
    String memberB;
    String word;

    @BeforeEach
    void twoTenants() {
        tenantA = tenant("inv-a");
        tenantB = tenant("inv-b");
        memberA = key(tenantA, "member");
        auditorA = key(tenantA, "auditor");
        memberB = key(tenantB, "member");
        word = "wombat" + ThreadLocalRandom.current().nextLong(1_000_000, 9_999_999);
    }

    @Test
    void anOperatorSeesEveryTenantWithATenantFilterOtherRolesOnlyTheirOwn() {
        String jobA = run(memberA, Map.of("language", "bash", "code", "echo " + word));
        String jobB = run(memberB, Map.of("language", "bash", "code", "echo " + word));

        AuditUiTest.Browser operator = signIn(ADMIN);
        String every = operator.request().queryParam("q", word).get("/ui/jobs").then().statusCode(200).extract().asString();
        assertTrue(every.contains(jobA) && every.contains(jobB), every);
        assertTrue(every.contains("name=\"tenant\""), "an operator has a tenant filter");
        assertTrue(every.contains("href=\"/ui/jobs/" + jobB + "?tenant=" + tenantB + "\""), every);
        String onlyB = operator.request().queryParam("q", word).queryParam("tenant", tenantB).get("/ui/jobs").asString();
        assertTrue(onlyB.contains(jobB) && !onlyB.contains(jobA), onlyB);
        assertTrue(operator.request().queryParam("tenant", tenantB).get("/ui/jobs/" + jobB).then().statusCode(200)
                .extract().asString().contains(word));

        // a member: the tenant parameter is ignored, the list and pages stay its tenant's
        AuditUiTest.Browser member = signIn(memberA);
        String mine = member.request().queryParam("q", word).queryParam("tenant", tenantB).get("/ui/jobs")
                .then().statusCode(200).extract().asString();
        assertTrue(mine.contains(jobA) && !mine.contains(jobB), mine);
        assertFalse(mine.contains("name=\"tenant\""), "no tenant filter for a member");
        member.request().queryParam("tenant", tenantB).get("/ui/jobs/" + jobB).then().statusCode(404);
        member.request().queryParam("tenant", tenantB).get("/ui/jobs/" + jobB + "/events").then().statusCode(404);
        String export = member.request().queryParam("q", word).queryParam("tenant", tenantB).get("/ui/jobs/export.csv")
                .then().statusCode(200).extract().asString();
        assertTrue(export.contains(jobA) && !export.contains(jobB), export);
    }

    @Test
    void searchAndMetadataFindTheJobAndEveryTypedValueShowsAsText() {
        String job = run(memberA, Map.of("language", "bash", "code", "echo '<img src=x onerror=alert(1)>' " + word,
                "metadata", Map.of("team", "<script>alert(2)</script>", "ticket", "t-" + word)));
        AuditUiTest.Browser auditor = signIn(auditorA);
        assertTrue(auditor.request().queryParam("q", "onerror " + word).get("/ui/jobs").asString().contains(job));
        assertTrue(auditor.request().queryParam("q", "t-" + word).get("/ui/jobs").asString().contains(job), "metadata is searched");
        assertTrue(auditor.request().queryParam("meta.ticket", "t-" + word).get("/ui/jobs").asString().contains(job));
        String byScriptValue = auditor.request().queryParam("meta", "team=<script>alert(2)</script> ticket=t-" + word)
                .get("/ui/jobs").then().statusCode(200).extract().asString();
        assertTrue(byScriptValue.contains(job), byScriptValue);
        assertFalse(byScriptValue.contains("<script>alert(2)"), byScriptValue);
        assertTrue(byScriptValue.contains("team=&lt;script&gt;alert(2)&lt;/script&gt;"), byScriptValue);
        assertFalse(auditor.request().queryParam("meta.ticket", "other").get("/ui/jobs").asString().contains(job));

        String hostile = auditor.request().queryParam("q", "\"><script>alert(3)</script>").get("/ui/jobs")
                .then().statusCode(200).extract().asString();
        assertFalse(hostile.contains("<script>alert(3)"), hostile);
        assertTrue(hostile.contains("&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"), hostile);
        auditor.request().queryParam("meta", "no-equals-sign").get("/ui/jobs").then().statusCode(400)
                .body(containsString("key=value"));

        String page = auditor.request().get("/ui/jobs/" + job).then().statusCode(200).extract().asString();
        assertFalse(page.contains("<script>alert(2)") || page.contains("<img src=x"), page);
    }

    @Test
    void exportsAreTheFilteredListAsCsvAndJson() {
        String job = run(memberA, Map.of("language", "bash", "code", "echo " + word + "; sleep 1.3",
                "metadata", Map.of("formula", "=1+2")));
        run(memberA, Map.of("language", "bash", "code", "echo unrelated"));
        AuditUiTest.Browser auditor = signIn(auditorA);
        Response csv = auditor.request().queryParam("q", word).get("/ui/jobs/export.csv");
        csv.then().statusCode(200).contentType(startsWith("text/csv")).header("X-Export-Truncated", "false")
                .header("Content-Disposition", containsString("attachment"));
        String[] lines = csv.asString().split("\r\n");
        assertEquals(2, lines.length, csv.asString());
        assertTrue(lines[0].startsWith("id,tenant,key_id,key_name,key_role,status,language,"), lines[0]);
        assertTrue(lines[1].startsWith(job + ",") && lines[1].contains(",succeeded,bash,"), lines[1]);
        assertTrue(lines[1].matches(".*,1\\.\\d s,.*"), "the human duration: " + lines[1]);

        JsonPath json = auditor.request().queryParam("q", word).get("/ui/jobs/export.json").then().statusCode(200)
                .contentType(startsWith("application/json")).extract().jsonPath();
        assertEquals(List.of(job), json.getList("items.id"));
        assertEquals("=1+2", json.getString("items[0].metadata.formula"));
        assertEquals(false, json.getBoolean("truncated"));
        assertEquals(JobExport.MAX_ROWS, json.getInt("max_rows"));
        // the export needs a session like the pages
        io.restassured.RestAssured.given().redirects().follow(false).get("/ui/jobs/export.csv").then().statusCode(303);
    }

    @Test
    void theAuditLogPageListsRecordsThatAreNotJobsByKindAndTenant() {
        signIn(key(tenantB, "auditor"));
        // a key and a policy change of tenant A
        String revoked = read(dev.nixexec.testing.Api.as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenantA + "/keys")
                .then().statusCode(201).extract().asString(), "id");
        dev.nixexec.testing.Api.as(ADMIN).delete("/v1/admin/keys/" + revoked).then().statusCode(204);
        dev.nixexec.testing.Api.as(ADMIN).body(Map.of("policy", Map.of("max_queued", 40))).patch("/v1/admin/tenants/" + tenantA)
                .then().statusCode(200);
        AuditUiTest.Browser auditor = signIn(auditorA);
        String page = auditor.request().get("/ui/audit").then().statusCode(200).extract().asString();
        assertTrue(page.contains("ui_signed_in") && page.contains("key_created") && page.contains("key_revoked")
                && page.contains("policy_changed"), page);
        String policy = auditor.request().queryParam("kind", "policy_changed").get("/ui/audit").asString();
        String policyRows = policy.substring(policy.indexOf("<tbody>"));
        assertTrue(policyRows.contains("policy_changed") && policyRows.contains("max_queued")
                && !policyRows.contains("key_revoked") && !policyRows.contains("ui_signed_in"), policyRows);
        String signIns = auditor.request().queryParam("kind", "ui_signed_in").get("/ui/audit").asString();
        String rows = signIns.substring(signIns.indexOf("<tbody>"));
        assertTrue(rows.contains("ui_signed_in") && !rows.contains("key_created"), rows);
        // another tenant's records stay out, whatever the tenant parameter says
        String asked = auditor.request().queryParam("tenant", tenantB).get("/ui/audit").then().statusCode(200).extract().asString();
        assertFalse(asked.contains(tenantB), asked);
        String hostile = auditor.request().queryParam("kind", "<script>alert(4)</script>").get("/ui/audit").asString();
        assertFalse(hostile.contains("<script>alert(4)"), hostile);
        signIn(memberA).request().get("/ui/audit").then().statusCode(403);

        AuditUiTest.Browser operator = signIn(ADMIN);
        String ofB = operator.request().queryParam("tenant", tenantB).queryParam("kind", "ui_signed_in").get("/ui/audit")
                .then().statusCode(200).extract().asString();
        String bName = tenantName(operator, tenantB);
        assertTrue(ofB.substring(ofB.indexOf("<tbody>")).contains("<td>" + bName + "</td>"), ofB);
        String every = operator.request().queryParam("kind", "tenant_created").get("/ui/audit").asString();
        assertTrue(every.contains(bName) && every.contains(tenantName(operator, tenantA)), "every tenant's records");
    }

    /** A new tenant whose policy lists {@code localhost:9} as a webhook host, with a webhook secret; its id. */
    static String hookedTenant(String prefix) {
        String tenant = tenant(prefix, Map.of("webhook_hosts", List.of("localhost:9")));
        dev.nixexec.testing.Api.as(ADMIN).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201);
        return tenant;
    }

    /**
     * A finished job of a {@link #hookedTenant} whose callback was attempted (and refused: its host
     * is loopback, so the attempt is recorded without any receiver), once the delivery's audit
     * record exists, as the tenant's auditor reads it; the job's id.
     */
    static String jobWithADelivery(String member, String auditor) {
        String job = run(member, Map.of("language", "bash", "code", "true", "callback_url", "http://localhost:9/hook"));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (!dev.nixexec.testing.Api.as(auditor).queryParam("job_id", job).get("/v1/audit").then().statusCode(200)
                .extract().<List<String>>path("items.kind").contains("webhook_delivery")) {
            assertTrue(System.nanoTime() < deadline, "the callback of job " + job + " was not attempted");
            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000); // polling for a state, not timing an assertion
        }
        return job;
    }

    /** {tenant id, auditor key, job id} of a new {@link #hookedTenant} with a {@link #jobWithADelivery}. */
    private static List<String> tenantWithADelivery(String prefix) {
        String tenant = hookedTenant(prefix);
        String auditor = key(tenant, "auditor");
        return List.of(tenant, auditor, jobWithADelivery(key(tenant, "member"), auditor));
    }

    @Test
    void theAuditLogPageListsWebhookDeliveriesWithTheirJobByKindAndTenant() {
        List<String> a = tenantWithADelivery("inv-hooks-a");
        List<String> b = tenantWithADelivery("inv-hooks-b");
        String jobA = a.get(2);
        String jobB = b.get(2);
        AuditUiTest.Browser auditor = signIn(a.get(1));
        String page = auditor.request().get("/ui/audit").then().statusCode(200).extract().asString();
        String rows = page.substring(page.indexOf("<tbody>"));
        assertTrue(rows.contains("<summary>webhook_delivery</summary>") && rows.contains("ui_signed_in"), rows);
        assertTrue(rows.contains("result callback, attempt 1, to localhost:9: refused"), rows);
        assertTrue(rows.contains("<a href=\"/ui/jobs/" + jobA + "\">job " + jobA.substring(0, 8) + "</a>"),
                "the job is linked: " + rows);
        assertTrue(page.contains("<option value=\"webhook_delivery\">webhook_delivery</option>"), "a kind of the filter");
        assertFalse(page.contains(jobB), "another tenant's delivery");
        String deliveries = auditor.request().queryParam("kind", "webhook_delivery").get("/ui/audit").then().statusCode(200)
                .extract().asString();
        String deliveryRows = deliveries.substring(deliveries.indexOf("<tbody>"));
        assertTrue(deliveryRows.contains(jobA) && !deliveryRows.contains("ui_signed_in") && !deliveryRows.contains(jobB),
                deliveryRows);
        assertFalse(auditor.request().queryParam("tenant", b.get(0)).queryParam("kind", "webhook_delivery").get("/ui/audit")
                .asString().contains(jobB), "the tenant parameter is ignored for an auditor");
        // a job's other records stay on its page
        assertFalse(rows.contains("job_submitted") || rows.contains("job_finished"), rows);

        AuditUiTest.Browser operator = signIn(ADMIN);
        String every = operator.request().queryParam("kind", "webhook_delivery").get("/ui/audit").then().statusCode(200)
                .extract().asString();
        assertTrue(every.contains("href=\"/ui/jobs/" + jobA + "?tenant=" + a.get(0) + "\"")
                && every.contains("href=\"/ui/jobs/" + jobB + "?tenant=" + b.get(0) + "\""), "every tenant's deliveries");
        String ofB = operator.request().queryParam("kind", "webhook_delivery").queryParam("tenant", b.get(0)).get("/ui/audit")
                .then().statusCode(200).extract().asString();
        assertTrue(ofB.contains(jobB) && !ofB.contains(jobA), ofB);
    }

    @Test
    void aJobsArtifactsShowImagesByTheirBytesAndServeNothingAsAPage() {
        String job = run(memberA, Map.of("language", "bash", "artifacts", List.of("out"), "code", String.join("\n",
                "mkdir -p out",
                "echo " + PNG_BASE64 + " | base64 -d > out/dot.png",
                "echo '<script>alert(5)</script>' > out/fake.png",
                "echo '<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(6)</script></svg>' > out/pic.svg",
                "echo '<script>alert(7)</script>' > out/page.html")));
        AuditUiTest.Browser member = signIn(memberA);
        String page = member.request().get("/ui/jobs/" + job).then().statusCode(200).extract().asString();
        String base = "/ui/jobs/" + job + "/artifacts/out/";
        assertTrue(page.contains("<img src=\"" + base + "dot.png\""), page);
        assertTrue(page.contains("<img src=\"" + base + "pic.svg\""), "an SVG only as a picture");
        assertFalse(page.contains("<img src=\"" + base + "fake.png\""), "a text named .png is no picture");
        assertFalse(page.contains("<img src=\"" + base + "page.html\""));
        assertTrue(page.contains("href=\"" + base + "fake.png\" download"), page);

        Response png = member.request().get(base + "dot.png");
        png.then().statusCode(200).contentType("image/png").header("X-Content-Type-Options", "nosniff")
                .header("Content-Security-Policy", containsString("sandbox")).header("Content-Disposition", startsWith("inline"));
        assertArrayEquals(java.util.Base64.getDecoder().decode(PNG_BASE64), png.asByteArray());
        member.request().get(base + "fake.png").then().statusCode(200).contentType("application/octet-stream")
                .header("Content-Disposition", startsWith("attachment"));
        member.request().get(base + "pic.svg").then().statusCode(200).contentType("image/svg+xml")
                .header("Content-Disposition", startsWith("attachment"))
                .header("Content-Security-Policy", containsString("sandbox"))
                .header("X-Content-Type-Options", "nosniff");
        member.request().get(base + "page.html").then().statusCode(200).contentType("application/octet-stream")
                .header("Content-Disposition", startsWith("attachment"));
        signIn(memberB).request().get(base + "dot.png").then().statusCode(404);
        signIn(memberB).request().queryParam("tenant", tenantA).get(base + "dot.png").then().statusCode(404);
        member.request().get(base + "../../etc/passwd").then().statusCode(org.hamcrest.Matchers.anyOf(
                org.hamcrest.Matchers.is(400), org.hamcrest.Matchers.is(404)));
    }

    private static String tenantName(AuditUiTest.Browser operator, String tenantId) {
        String form = operator.request().get("/ui/audit").asString();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<option value=\"" + tenantId + "\"[^>]*>([^<]+)</option>")
                .matcher(form);
        assertTrue(m.find(), "tenant " + tenantId + " in the operator's filter");
        return m.group(1);
    }
}

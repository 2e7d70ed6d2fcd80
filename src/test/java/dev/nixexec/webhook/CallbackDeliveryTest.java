package dev.nixexec.webhook;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code callback_url} end to end: real jobs, the real delivery service, real HTTP receivers on
 * 127.0.0.1 (listed as that IP literal, the only way a callback reaches loopback).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class CallbackDeliveryTest {

    @Inject
    AgroalDataSource db;

    @Inject
    ObjectMapper json;

    /** A tenant whose policy lists these webhook hosts, with a webhook secret; its member key and secret. */
    private record Hooked(String tenantId, String member, String secret) {
    }

    private static Hooked hooked(String... webhookHosts) {
        String tenant = tenant("hooks", Map.of("webhook_hosts", List.of(webhookHosts)));
        String secret = read(as(ADMIN).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201)
                .extract().asString(), "secret");
        return new Hooked(tenant, key(tenant, "member"), secret);
    }

    private static String submitWithCallback(Hooked tenant, String url) {
        return read(as(tenant.member()).body(Map.of("language", "bash", "code", "echo called", "callback_url", url))
                .post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    @Test
    void aListedNameThatResolvesToLoopbackIsNotDeliveredTo() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            Hooked tenant = hooked("localhost:" + receiver.port());
            String job = submitWithCallback(tenant, "http://localhost:" + receiver.port() + "/hook");

            List<JsonNode> attempts = attemptsUntilEnded(job);
            assertEquals(1, attempts.size(), "a refusal is final: " + attempts);
            assertEquals("refused", attempts.getFirst().path("outcome").asText());
            assertTrue(attempts.getFirst().path("refused").asText().contains("internal address"), attempts.toString());
            assertEquals("localhost", attempts.getFirst().path("host").asText());
            assertEquals(0, receiver.count(), "nothing reached the loopback receiver");
        }
    }

    @Test
    void aRedirectToAnInternalUrlIsNotFollowed() throws Exception {
        try (CallbackReceiver internal = new CallbackReceiver();
                CallbackReceiver receiver = new CallbackReceiver().answering(302, 302, 302)) {
            receiver.redirectingTo("http://127.0.0.1:" + internal.port() + "/internal");
            Hooked tenant = hooked("127.0.0.1:" + receiver.port());
            String job = submitWithCallback(tenant, "http://127.0.0.1:" + receiver.port() + "/hook");

            List<JsonNode> attempts = attemptsUntilEnded(job);
            // the test profile's retry delays: 2 waits, so 3 attempts, each a 302 not followed
            assertEquals(List.of("retry", "retry", "failed"), attempts.stream().map(a -> a.path("outcome").asText()).toList());
            attempts.forEach(a -> assertEquals(302, a.path("status").asInt(), a.toString()));
            assertEquals(3, receiver.count());
            assertEquals(0, internal.count(), "the redirect target was never asked");
        }
    }

    @Test
    void theSignedJobJsonIsDeliveredAfterA500() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver().answering(500)) {
            Hooked tenant = hooked("127.0.0.1:" + receiver.port());
            String job = submitWithCallback(tenant, "http://127.0.0.1:" + receiver.port() + "/hook?source=test");

            CallbackReceiver.Received first = receiver.next();
            CallbackReceiver.Received second = receiver.next();
            assertEquals("/hook?source=test", second.path());
            assertEquals("application/json", second.headers().get("content-type"));
            String signature = second.headers().get("x-nixexec-signature");
            assertEquals(WebhookSignature.of(tenant.secret().getBytes(StandardCharsets.UTF_8), second.body()), signature);
            assertEquals(signature, first.headers().get("x-nixexec-signature"), "every attempt sends the same signed body");
            assertTrue(signature.matches("sha256=[0-9a-f]{64}"), signature);
            // a body changed on the way no longer matches its signature
            byte[] tampered = second.body().clone();
            tampered[tampered.length / 2] ^= 1;
            assertNotEquals(signature, WebhookSignature.of(tenant.secret().getBytes(StandardCharsets.UTF_8), tampered));

            JsonNode delivered = json.readTree(second.body());
            JsonNode read = json.readTree(as(tenant.member()).get("/v1/jobs/" + job).then().statusCode(200).extract().asString());
            assertEquals(read, delivered, "the body is the job JSON as GET /v1/jobs/{id} returns it");
            assertEquals("succeeded", delivered.path("status").asText());
            assertEquals("called\n", delivered.path("stdout").asText());

            List<JsonNode> attempts = attemptsUntilEnded(job);
            assertEquals(2, attempts.size(), attempts.toString());
            assertEquals(500, attempts.get(0).path("status").asInt());
            assertEquals("retry", attempts.get(0).path("outcome").asText());
            assertEquals(200, attempts.get(1).path("status").asInt());
            assertEquals("delivered", attempts.get(1).path("outcome").asText());
            assertEquals("127.0.0.1", attempts.get(1).path("host").asText());
            assertEquals(2, attempts.get(1).path("attempt").asInt());
            assertEquals(0, receiver.count(), "no attempt after the 2xx");
        }
    }

    @Test
    void aCallbackLeftByANodeThatDiedMidAttemptIsDeliveredFromTheDatabase() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            Hooked tenant = hooked("127.0.0.1:" + receiver.port());
            String job = read(as(tenant.member()).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs?wait=60")
                    .then().statusCode(200).extract().asString(), "id");
            // what a node leaves when it dies after claiming attempt 1: only the row, its lease run out
            try (Connection c = db.getConnection(); PreparedStatement insert = c.prepareStatement("INSERT INTO job_callbacks "
                    + "(job_id, tenant_id, url, attempts, next_attempt_at) VALUES (?, ?, ?, 1, now() - interval '1 second')")) {
                insert.setObject(1, UUID.fromString(job));
                insert.setObject(2, UUID.fromString(tenant.tenantId()));
                insert.setString(3, "http://127.0.0.1:" + receiver.port() + "/late");
                insert.executeUpdate();
            }
            CallbackReceiver.Received late = receiver.next();
            assertEquals("/late", late.path());
            assertEquals("2", late.headers().get("x-nixexec-attempt"));
            assertEquals(job, json.readTree(late.body()).path("id").asText());
            assertEquals("delivered", attemptsUntilEnded(job).getLast().path("outcome").asText());
        }
    }

    @Test
    void anUnreachableReceiverIsRetriedThenFails() throws Exception {
        int closedPort;
        try (CallbackReceiver gone = new CallbackReceiver()) {
            closedPort = gone.port();
        }
        Hooked tenant = hooked("127.0.0.1:" + closedPort);
        String job = submitWithCallback(tenant, "http://127.0.0.1:" + closedPort + "/hook");
        List<JsonNode> attempts = attemptsUntilEnded(job);
        assertEquals(3, attempts.size(), attempts.toString());
        attempts.forEach(a -> assertTrue(a.path("exception").asText().contains("Connect"), a.toString()));
        assertEquals("failed", attempts.getLast().path("outcome").asText());
    }

    @Test
    void aCallbackIsRefusedAtSubmissionUnlessListedAndSigned() {
        Hooked tenant = hooked("hooks.example.com", "127.0.0.1:9");
        for (String url : List.of("http://elsewhere.example.com/hook", "http://127.0.0.1:10/hook",
                "ftp://hooks.example.com/hook", "http://user:pw@hooks.example.com/hook", "hooks.example.com/hook",
                "http://169.254.169.254/latest/meta-data")) {
            as(tenant.member()).body(Map.of("language", "bash", "code", "true", "callback_url", url)).post("/v1/jobs")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("callback_url")));
        }
        String unsigned = tenant("hooks", Map.of("webhook_hosts", List.of("hooks.example.com")));
        as(key(unsigned, "member")).body(Map.of("language", "bash", "code", "true",
                        "callback_url", "https://hooks.example.com/hook")).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("callback_url")))
                .body(json("errors[0].message", containsString("the tenant has no webhook secret")));
        // a listed host on any port for a bare entry
        as(tenant.member()).body(Map.of("language", "bash", "code", "true",
                "callback_url", "https://hooks.example.com:8443/hook")).post("/v1/jobs").then().statusCode(201);
    }

    @Test
    void onlyTheTenantsAdminOrAnOperatorMakesItsSecret() throws SQLException {
        String tenant = tenant("hooks");
        String admin = key(tenant, "admin");
        String first = read(as(ADMIN).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201)
                .body(json("secret", startsWith("whsec_"))).extract().asString(), "secret");
        String rotated = read(as(admin).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201)
                .extract().asString(), "secret");
        assertNotEquals(first, rotated);
        as(key(tenant("other"), "admin")).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(404);
        as(key(tenant, "member")).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(403);
        as(key(tenant, "auditor")).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(403);
        String audited = String.join("\n", column("SELECT detail::text FROM audit_events WHERE tenant_id = ?",
                UUID.fromString(tenant)));
        assertTrue(audited.contains("\"rotated\": true"), audited);
        assertFalse(audited.contains(first) || audited.contains(rotated), "the secret is never audited");
    }

    @Test
    void aPolicyWithAMalformedWebhookHostIsRefused() {
        as(ADMIN).body(Map.of("name", "hooks-" + UUID.randomUUID().toString().substring(0, 8),
                        "policy", Map.of("webhook_hosts", List.of("http://hooks.example.com/"))))
                .post("/v1/admin/tenants").then().statusCode(400).body(json("errors[0].field", equalTo("policy.webhook_hosts")));
    }

    /** The job's delivery attempts as audited, once its delivery has ended (delivered, failed or refused). */
    private List<JsonNode> attemptsUntilEnded(String job) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            List<String> ended = column("SELECT outcome FROM job_callbacks WHERE job_id = ? AND finished_at IS NOT NULL",
                    UUID.fromString(job));
            if (!ended.isEmpty()) {
                List<JsonNode> attempts = new ArrayList<>();
                for (String detail : column("SELECT detail::text FROM audit_events WHERE job_id = ? AND kind = "
                        + "'webhook_delivery' ORDER BY id", UUID.fromString(job))) {
                    attempts.add(json.readTree(detail));
                }
                assertEquals(ended.getFirst(), attempts.getLast().path("outcome").asText());
                return attempts;
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling for a state, not timing an assertion
        }
        throw new AssertionError("the callback of job " + job + " did not end");
    }

    private List<String> column(String sql, UUID id) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setObject(1, id);
            List<String> values = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
            return values;
        }
    }
}

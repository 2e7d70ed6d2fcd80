package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.tenant.KeyUses;
import dev.nixexec.tenant.TenantCache;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Issue 17, operators and administration: listing tenants, changing a tenant's policy, listing
 * keys (named, expiring, with their last use). The attacks come first: another tenant's admin, a
 * member, a bad policy field, a secret in a listing.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class TenantAdministrationTest {

    static final Set<String> KEY_FIELDS = Set.of("id", "name", "role", "created_at", "last_used_at", "expires_at", "revoked_at");

    @Inject
    AgroalDataSource db;

    @Inject
    KeyUses keyUses;

    @Test
    void anAdminOfAnotherTenantGets404AsForAnUnknownTenant() throws SQLException {
        String a = tenant("adm-a");
        String b = tenant("adm-b", Map.of("max_queued", 3));
        String adminA = key(a, "admin");
        String unknown = UUID.randomUUID().toString();
        for (String id : List.of(b, unknown)) {
            as(adminA).body(Map.of("policy", Map.of("max_queued", 1000, "network", true))).patch("/v1/admin/tenants/" + id)
                    .then().statusCode(404).body(json("detail", equalTo("no tenant " + id)));
            as(adminA).get("/v1/admin/tenants/" + id + "/keys").then().statusCode(404).body(json("detail", equalTo("no tenant " + id)));
        }
        assertEquals("{\"max_queued\": 3}", policyInDatabase(b));
        as(adminA).get("/v1/admin/tenants").then().statusCode(403).contentType("application/problem+json");
    }

    @Test
    void aMemberOrAuditorCannotChangeItsOwnPolicyNorListKeysOrTenants() throws SQLException {
        String t = tenant("adm-member", Map.of("max_queued", 3));
        for (String role : List.of("member", "auditor")) {
            String key = key(t, role);
            as(key).body(Map.of("policy", Map.of("max_queued", 1000))).patch("/v1/admin/tenants/" + t)
                    .then().statusCode(403).contentType("application/problem+json");
            as(key).get("/v1/admin/tenants/" + t + "/keys").then().statusCode(403);
            as(key).get("/v1/admin/tenants").then().statusCode(403);
        }
        assertEquals("{\"max_queued\": 3}", policyInDatabase(t));
    }

    @Test
    void aBadPolicyFieldIsRefusedAndChangesNothing() throws SQLException {
        String t = tenant("adm-bad", Map.of("max_queued", 3, "languages", List.of("python")));
        String admin = key(t, "admin");
        String before = policyInDatabase(t);
        record Bad(Object policy, String field) {
        }
        List<Bad> bad = List.of(
                new Bad(Map.of("max_queued", 5, "max_timout_seconds", 10), "policy.max_timout_seconds"),
                new Bad(Map.of("max_queued", "lots"), "policy.max_queued"),
                new Bad(Map.of("max_running", 2, "max_queued", -1), "policy.max_queued"),
                new Bad(Map.of("max_timeout_seconds", 0), "policy.max_timeout_seconds"),
                new Bad(Map.of("languages", List.of("python", " ")), "policy.languages[1]"),
                new Bad(Map.of("languages", "python"), "policy.languages"),
                new Bad(Map.of("network", Map.of("on", true)), "policy.network"));
        for (Bad b : bad) {
            as(admin).body(Map.of("policy", b.policy())).patch("/v1/admin/tenants/" + t).then().statusCode(400)
                    .contentType("application/problem+json").body(json("errors.field", hasItem(b.field())));
        }
        as(admin).body(Map.of()).patch("/v1/admin/tenants/" + t).then().statusCode(400).body(json("errors[0].field", equalTo("policy")));
        as(admin).body(Map.of("policy", Map.of("max_queued", 5), "name", "renamed")).patch("/v1/admin/tenants/" + t)
                .then().statusCode(400);
        as(admin).body(Map.of("policy", List.of(1))).patch("/v1/admin/tenants/" + t).then().statusCode(400);
        assertEquals(before, policyInDatabase(t));
        List<Map<String, Object>> audit = read(as(admin).get("/v1/audit").then().statusCode(200).extract().asString(), "items");
        assertFalse(audit.stream().anyMatch(e -> "policy_changed".equals(e.get("kind"))), "a refused change is not audited");
        // a new tenant's policy is checked the same way
        as(ADMIN).body(Map.of("name", "adm-bad-new-" + UUID.randomUUID().toString().substring(0, 8),
                "policy", Map.of("max_queued", -1))).post("/v1/admin/tenants").then().statusCode(400)
                .body(json("errors.field", hasItem("policy.max_queued")));
    }

    @Test
    void aKeyListingNeverCarriesASecretOrItsHash() throws Exception {
        String t = tenant("adm-list");
        JsonPath made = as(ADMIN).body(Map.of("role", "member", "name", "ci runner")).post("/v1/admin/tenants/" + t + "/keys")
                .then().statusCode(201).extract().jsonPath();
        String secret = made.getString("key");
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        String admin = key(t, "admin");
        for (String by : List.of(ADMIN, admin)) {
            String body = as(by).get("/v1/admin/tenants/" + t + "/keys").then().statusCode(200).extract().asString();
            List<Map<String, Object>> keys = JsonPath.from(body).getList("$");
            assertEquals(2, keys.size());
            for (Map<String, Object> k : keys) {
                assertEquals(KEY_FIELDS, k.keySet(), "exactly these fields, no key, secret or hash");
            }
            assertFalse(body.contains(secret), "the secret");
            assertFalse(body.contains(secret.substring(3, 20)), "part of the secret");
            assertFalse(body.contains(HexFormat.of().formatHex(hash)), "the hash in hex");
            assertFalse(body.contains(Base64.getEncoder().encodeToString(hash)), "the hash in base64");
            assertFalse(body.contains(Base64.getUrlEncoder().withoutPadding().encodeToString(hash)), "the hash in base64url");
            Map<String, Object> listed = keys.stream().filter(k -> made.getString("id").equals(k.get("id"))).findFirst().orElseThrow();
            assertEquals("ci runner", listed.get("name"));
            assertEquals("member", listed.get("role"));
            assertNotNull(listed.get("created_at"));
            assertNull(listed.get("expires_at"));
            assertNull(listed.get("revoked_at"));
        }
    }

    @Test
    void theOperatorListsEveryTenant() {
        String one = tenant("adm-every", Map.of("network", true));
        String two = tenant("adm-every");
        String body = as(ADMIN).get("/v1/admin/tenants").then().statusCode(200)
                .body(json("id", hasItems(one, two))).extract().asString();
        List<Map<String, Object>> all = JsonPath.from(body).getList("$");
        Map<String, Object> first = all.stream().filter(t -> one.equals(t.get("id"))).findFirst().orElseThrow();
        assertEquals(Set.of("id", "name", "policy", "granted", "created_at"), first.keySet());
        assertEquals(Map.of("network", true), first.get("policy"));
        assertEquals(Map.of("network", true), first.get("granted"));
        assertTrue(((String) first.get("name")).startsWith("adm-every-"));
        List<OffsetDateTime> made = all.stream().map(t -> OffsetDateTime.parse((String) t.get("created_at"))).toList();
        assertEquals(made.stream().sorted().toList(), made, "oldest first");
        assertTrue(all.indexOf(first) < all.stream().map(t -> t.get("id")).toList().indexOf(two));
        // and reads their jobs and audit through ?tenant=
        as(ADMIN).get("/v1/jobs?tenant=" + two).then().statusCode(200);
        as(ADMIN).get("/v1/audit?tenant=" + two).then().statusCode(200).body(json("items.kind", hasItem("tenant_created")));
    }

    /**
     * A merge patch: the fields given change, a null one returns to the default (the grant's value,
     * for an admin), the rest stay. The change is audited with both policies, holds at once on this
     * node although it had kept the old policy, and is announced to the other nodes.
     */
    @Test
    void aPolicyChangeMergesIsAuditedAndHoldsAtOnceOnEveryNode() throws Exception {
        String t = tenant("adm-patch", Map.of("max_timeout_seconds", 60, "network", true));
        String admin = key(t, "admin");
        String member = key(t, "member");
        Map<String, Object> job = Map.of("language", "bash", "code", "true", "timeout", 10);
        as(member).body(job).post("/v1/jobs").then().statusCode(201);

        try (Connection listener = db.getConnection(); Statement listen = listener.createStatement()) {
            listen.execute("LISTEN " + TenantCache.CHANNEL);
            as(admin).body(Map.of("policy", Map.of("max_timeout_seconds", 5, "max_queued", 7)))
                    .patch("/v1/admin/tenants/" + t).then().statusCode(200)
                    .body(json("id", equalTo(t))).body(json("policy", equalTo(Map.of("max_timeout_seconds", 5, "network", true, "max_queued", 7))))
                    .body(json("granted", equalTo(Map.of("max_timeout_seconds", 60, "network", true))));
            PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(10_000);
            listen.execute("UNLISTEN " + TenantCache.CHANNEL);
            assertNotNull(heard, "the other nodes are told");
            assertTrue(heard.length > 0, "the other nodes are told");
        }
        as(member).body(job).post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("timeout")));
        as(member).body(Map.of("language", "bash", "code", "true", "network", "full")).post("/v1/jobs").then().statusCode(201);

        Map<String, Object> reset = new HashMap<>();
        reset.put("network", null);
        as(ADMIN).body(Map.of("policy", reset)).patch("/v1/admin/tenants/" + t).then().statusCode(200)
                .body(json("policy", equalTo(Map.of("max_timeout_seconds", 5, "max_queued", 7)))).body(json("policy.network", nullValue()))
                .body(json("granted", equalTo(Map.of("max_timeout_seconds", 60))));
        as(member).body(Map.of("language", "bash", "code", "true", "network", "full")).post("/v1/jobs").then().statusCode(400)
                .body(json("errors[0].field", equalTo("network")));

        List<Map<String, Object>> audit = read(as(admin).get("/v1/audit").then().statusCode(200).extract().asString(), "items");
        List<Map<String, Object>> changes = audit.stream().filter(e -> "policy_changed".equals(e.get("kind"))).toList();
        assertEquals(2, changes.size());
        Map<?, ?> byAdmin = changes.stream().map(e -> (Map<?, ?>) e.get("detail"))
                .filter(d -> ((Map<?, ?>) d.get("before")).containsKey("network") && ((Map<?, ?>) d.get("after")).containsKey("network"))
                .findFirst().orElseThrow();
        assertEquals(Map.of("max_timeout_seconds", 60, "network", true), byAdmin.get("before"));
        assertEquals(Map.of("max_timeout_seconds", 5, "network", true, "max_queued", 7), byAdmin.get("after"));
        assertFalse(byAdmin.containsKey("granted_after"), "an admin's change leaves the grant alone");
        Map<?, ?> byOperator = changes.stream().map(e -> (Map<?, ?>) e.get("detail")).filter(d -> d != byAdmin).findFirst().orElseThrow();
        assertEquals(Map.of("max_timeout_seconds", 60), byOperator.get("granted_after"));
        // a patch that changes nothing is no change
        as(admin).body(Map.of("policy", Map.of("max_queued", 7))).patch("/v1/admin/tenants/" + t).then().statusCode(200);
        assertEquals(2, as(admin).get("/v1/audit").then().extract().<List<Map<String, Object>>>path("items").stream()
                .filter(e -> "policy_changed".equals(e.get("kind"))).count());
        // an admin's null returns a field to what the operator granted, not to the service's default
        Map<String, Object> back = new HashMap<>();
        back.put("max_timeout_seconds", null);
        as(admin).body(Map.of("policy", back)).patch("/v1/admin/tenants/" + t).then().statusCode(200)
                .body(json("policy", equalTo(Map.of("max_timeout_seconds", 60, "max_queued", 7))));
    }

    /**
     * The attack: a tenant's admin lifting the limits an operator set on its tenant — the network,
     * a cap, another language, a package the operator denied, a callback into the operator's own
     * network by IP literal (which the delivery checks would let through, since a listed literal
     * is how an operator lets callbacks in). Each is refused, names its field and changes nothing;
     * narrowing is the admin's, and widening back up to the grant too.
     */
    @Test
    void anAdminNarrowsItsTenantsPolicyWithinTheGrantButNeverWidensIt() throws SQLException {
        String t = tenant("adm-grant", Map.of("max_timeout_seconds", 30, "max_running", 2, "languages", List.of("python", "bash"),
                "package_denylist", List.of("curl"), "webhook_hosts", List.of("hooks.example.com", "10.0.0.5:8443")));
        String admin = key(t, "admin");
        String before = policyInDatabase(t);
        record Wider(Map<String, Object> policy, String field) {
        }
        List<Wider> attacks = List.of(
                new Wider(Map.of("network", true), "policy.network"),
                new Wider(Map.of("max_timeout_seconds", 31), "policy.max_timeout_seconds"),
                new Wider(Map.of("max_running", 1000), "policy.max_running"),
                new Wider(Map.of("max_queued", 1001), "policy.max_queued"),
                new Wider(Map.of("max_memory_bytes", 1 << 30, "max_timeout_seconds", 60), "policy.max_timeout_seconds"),
                new Wider(Map.of("languages", List.of("python", "bash", "ruby")), "policy.languages"),
                new Wider(Map.of("package_denylist", List.of()), "policy.package_denylist"),
                new Wider(Map.of("webhook_hosts", List.of("hooks.example.com", "169.254.169.254")), "policy.webhook_hosts"),
                new Wider(Map.of("webhook_hosts", List.of("[::1]:8080")), "policy.webhook_hosts"),
                new Wider(Map.of("webhook_hosts", List.of("10.0.0.5:8444")), "policy.webhook_hosts"));
        for (Wider w : attacks) {
            as(admin).body(Map.of("policy", w.policy())).patch("/v1/admin/tenants/" + t).then().statusCode(403)
                    .contentType("application/problem+json").body(json("detail", org.hamcrest.Matchers.containsString(w.field())));
        }
        assertEquals(before, policyInDatabase(t));
        assertFalse(as(admin).get("/v1/audit").then().statusCode(200).extract().<List<Map<String, Object>>>path("items")
                .stream().anyMatch(e -> "policy_changed".equals(e.get("kind"))), "a refused change is not audited");

        // narrowing, and host names of its own (each delivery still refuses a name that resolves inside)
        Map<String, Object> narrower = Map.of("max_timeout_seconds", 10, "languages", List.of("python"),
                "package_denylist", List.of("curl", "wget"), "webhook_hosts", List.of("10.0.0.5:8443", "ci.example.org"),
                "max_queued", 50);
        as(admin).body(Map.of("policy", narrower)).patch("/v1/admin/tenants/" + t).then().statusCode(200)
                .body(json("policy.max_timeout_seconds", equalTo(10))).body(json("policy.languages", equalTo(List.of("python"))))
                .body(json("policy.webhook_hosts", equalTo(List.of("10.0.0.5:8443", "ci.example.org"))))
                .body(json("granted.max_timeout_seconds", equalTo(30))).body(json("granted.languages", equalTo(List.of("python", "bash"))));
        as(key(t, "member")).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then().statusCode(400)
                .body(json("errors[0].field", equalTo("language")));
        // and back up to the grant, not past it
        as(admin).body(Map.of("policy", Map.of("max_timeout_seconds", 30, "languages", List.of("bash", "python"))))
                .patch("/v1/admin/tenants/" + t).then().statusCode(200).body(json("policy.max_timeout_seconds", equalTo(30)));
        // the operator widens the grant: then the admin may follow
        as(ADMIN).body(Map.of("policy", Map.of("max_running", 4))).patch("/v1/admin/tenants/" + t).then().statusCode(200)
                .body(json("granted.max_running", equalTo(4))).body(json("policy.max_running", equalTo(4)));
        as(admin).body(Map.of("policy", Map.of("max_running", 3))).patch("/v1/admin/tenants/" + t).then().statusCode(200);
        as(admin).body(Map.of("policy", Map.of("max_running", 4))).patch("/v1/admin/tenants/" + t).then().statusCode(200);
        as(admin).body(Map.of("policy", Map.of("max_running", 5))).patch("/v1/admin/tenants/" + t).then().statusCode(403);
    }

    @Test
    void aKeyHasANameAndAnExpiryInTheFuture() throws SQLException {
        String t = tenant("adm-expiry");
        String admin = key(t, "admin");
        OffsetDateTime at = OffsetDateTime.now(ZoneOffset.UTC).plusDays(30).withNano(0);
        JsonPath made = as(admin).body(Map.of("role", "auditor", "name", "quarterly review", "expires_at", at.toString()))
                .post("/v1/admin/tenants/" + t + "/keys").then().statusCode(201).extract().jsonPath();
        assertEquals("auditor", made.getString("role"));
        assertEquals("quarterly review", made.getString("name"));
        assertEquals(at.toInstant(), OffsetDateTime.parse(made.getString("expires_at")).toInstant());
        assertNotNull(made.getString("created_at"));
        assertTrue(made.getString("key").startsWith("nx_"));
        as(made.getString("key")).get("/v1/audit").then().statusCode(200);

        long keys = keys(t);
        for (String bad : List.of(OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1).toString(), "tomorrow",
                "2099-01-01T00:00:00", "2099-01-01", "+12099-01-01T00:00:00Z")) {
            as(admin).body(Map.of("role", "member", "expires_at", bad)).post("/v1/admin/tenants/" + t + "/keys")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("expires_at")));
        }
        as(admin).body(Map.of("role", "member", "expires_at", 4102444800L)).post("/v1/admin/tenants/" + t + "/keys")
                .then().statusCode(400);
        for (String bad : List.of("", " ", "x".repeat(101), "tab\there")) {
            as(admin).body(Map.of("role", "member", "name", bad)).post("/v1/admin/tenants/" + t + "/keys")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("name")));
        }
        assertEquals(keys, keys(t), "no key was made");
    }

    /** A revoked key stays in the listing, with the time of its revocation. */
    @Test
    void aRevokedKeyIsListedWithItsRevocation() {
        String t = tenant("adm-revoked");
        String admin = key(t, "admin");
        String keyId = read(as(admin).body(Map.of("role", "member", "name", "old laptop")).post("/v1/admin/tenants/" + t + "/keys")
                .then().statusCode(201).extract().asString(), "id");
        OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1);
        as(admin).delete("/v1/admin/keys/" + keyId).then().statusCode(204);
        String revoked = read(as(admin).get("/v1/admin/tenants/" + t + "/keys").then().statusCode(200)
                .body(json("find { it.id == '" + keyId + "' }.name", equalTo("old laptop")))
                .extract().asString(), "find { it.id == '" + keyId + "' }.revoked_at");
        assertNotNull(revoked, "the revoked key is listed with its revocation");
        OffsetDateTime at = OffsetDateTime.parse(revoked);
        assertTrue(!at.isBefore(before) && !at.isAfter(OffsetDateTime.now(ZoneOffset.UTC)), revoked);
    }

    /** Uses are written once a minute per node in one statement, not per request. */
    @Test
    void lastUsedAtFollowsUseWithoutAWritePerRequest() throws SQLException {
        String t = tenant("adm-used");
        JsonPath made = as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + t + "/keys")
                .then().statusCode(201).extract().jsonPath();
        String keyId = made.getString("id");
        keyUses.write();
        assertNull(lastUsed(t, keyId), "never used");
        OffsetDateTime before = OffsetDateTime.now(ZoneOffset.UTC).minusSeconds(1);
        for (int i = 0; i < 3; i++) {
            as(made.getString("key")).get("/v1/jobs").then().statusCode(200);
        }
        assertNull(lastUsed(t, keyId), "no write per request");
        keyUses.write();
        OffsetDateTime used = lastUsed(t, keyId);
        assertNotNull(used);
        assertTrue(!used.isBefore(before) && !used.isAfter(OffsetDateTime.now(ZoneOffset.UTC)), used.toString());
        as(ADMIN).get("/v1/admin/tenants/" + t + "/keys").then().body(json("find { it.id == '" + keyId + "' }.last_used_at", not(nullValue())));
    }

    private static OffsetDateTime lastUsed(String tenantId, String keyId) {
        String at = read(as(ADMIN).get("/v1/admin/tenants/" + tenantId + "/keys").then().statusCode(200).extract().asString(), "find { it.id == '" + keyId + "' }.last_used_at");
        return at == null ? null : OffsetDateTime.parse(at);
    }

    private String policyInDatabase(String tenantId) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement("SELECT policy::text FROM tenants WHERE id = ?")) {
            q.setObject(1, UUID.fromString(tenantId));
            try (ResultSet rs = q.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        }
    }

    private long keys(String tenantId) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement("SELECT count(*) FROM api_keys WHERE tenant_id = ?")) {
            q.setObject(1, UUID.fromString(tenantId));
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}

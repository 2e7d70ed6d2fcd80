package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.Api;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, item 4: a tenant's admin key is an admin of that tenant only. The platform (tenants,
 * nodes, keys of every tenant) belongs to operator keys; the bootstrap key is one. Another tenant's
 * objects answer an admin exactly as unknown ones do, so their existence does not leak.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class TenantAdminScopeTest {

    /** The bootstrap key of the test configuration: an operator key of the default tenant. */
    static final String OPERATOR = Api.ADMIN;

    @Inject
    AgroalDataSource db;

    @Inject
    Tenants tenants;

    String t1;
    String t2;
    Key admin1;
    Key member2;

    record Key(String id, String secret) {
    }

    static Key key(String by, String tenantId, String role) {
        JsonPath made = as(by).body(Map.of("role", role)).post("/v1/admin/tenants/" + tenantId + "/keys")
                .then().statusCode(201).body(json("role", equalTo(role))).extract().jsonPath();
        return new Key(made.getString("id"), made.getString("key"));
    }

    @BeforeEach
    void twoTenants() {
        t1 = tenant("t1");
        t2 = tenant("t2");
        admin1 = key(OPERATOR, t1, "admin");
        key(OPERATOR, t2, "admin");
        member2 = key(OPERATOR, t2, "member");
    }

    @Test
    void anAdminCannotMintKeysInAnotherTenant() throws SQLException {
        long before = keys(t2);
        JsonPath foreign = as(admin1.secret()).body(Map.of("role", "member")).post("/v1/admin/tenants/" + t2 + "/keys")
                .then().statusCode(404).contentType("application/problem+json").extract().jsonPath();
        assertEquals(before, keys(t2), "no key was made in the other tenant");
        // exactly as for a tenant that does not exist
        UUID unknown = UUID.randomUUID();
        JsonPath none = as(admin1.secret()).body(Map.of("role", "member")).post("/v1/admin/tenants/" + unknown + "/keys")
                .then().statusCode(404).extract().jsonPath();
        assertEquals(none.getString("title"), foreign.getString("title"));
        assertEquals(none.getString("detail").replace(unknown.toString(), t2), foreign.getString("detail"));
        // not even a key of a role it may otherwise grant
        as(admin1.secret()).body(Map.of("role", "auditor")).post("/v1/admin/tenants/" + t2 + "/keys").then().statusCode(404);
        as(admin1.secret()).body(Map.of("role", "operator")).post("/v1/admin/tenants/" + t2 + "/keys").then().statusCode(404);
        assertEquals(before, keys(t2));
    }

    @Test
    void anAdminCannotRevokeAnotherTenantsKey() {
        as(admin1.secret()).delete("/v1/admin/keys/" + member2.id()).then().statusCode(404)
                .body(json("detail", equalTo("no key " + member2.id())));
        as(member2.secret()).get("/v1/jobs").then().statusCode(200);
    }

    @Test
    void anAdminCannotCreateTenantsNorListNodes() throws SQLException {
        String name = "by-admin-" + UUID.randomUUID().toString().substring(0, 8);
        as(admin1.secret()).body(Map.of("name", name)).post("/v1/admin/tenants").then().statusCode(403)
                .contentType("application/problem+json");
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement("SELECT count(*) FROM tenants WHERE name = ?")) {
            q.setString(1, name);
            assertEquals(0, count(q));
        }
        as(admin1.secret()).get("/v1/nodes").then().statusCode(403);
    }

    /**
     * 403, not 400: {@code operator} is a role the API knows and the request is well formed; the
     * caller lacks the right to grant it (only an operator mints an operator key).
     */
    @Test
    void anAdminCannotMintAnOperatorKeyInItsOwnTenant() throws SQLException {
        long before = keys(t1);
        as(admin1.secret()).body(Map.of("role", "operator")).post("/v1/admin/tenants/" + t1 + "/keys").then().statusCode(403)
                .contentType("application/problem+json");
        assertEquals(before, keys(t1));
    }

    @Test
    void anAdminManagesItsOwnTenant() {
        Key member1 = key(admin1.secret(), t1, "member");
        key(admin1.secret(), t1, "auditor");
        key(admin1.secret(), t1, "admin");
        as(member1.secret()).get("/v1/jobs").then().statusCode(200);
        as(admin1.secret()).delete("/v1/admin/keys/" + member1.id()).then().statusCode(204);
        as(member1.secret()).get("/v1/jobs").then().statusCode(401);
        // what its key_created and key_revoked records name as the actor: the admin's own key
        List<Map<String, Object>> items = read(as(admin1.secret()).get("/v1/audit").then().statusCode(200).extract().asString(), "items");
        assertEquals(admin1.id(), actor(items, "key_created", member1.id()));
        assertEquals(admin1.id(), actor(items, "key_revoked", member1.id()));
    }

    @Test
    void anAdminCannotRevokeAnOperatorKeyOfItsOwnTenant() {
        Key operator1 = key(OPERATOR, t1, "operator");
        as(admin1.secret()).delete("/v1/admin/keys/" + operator1.id()).then().statusCode(403);
        as(operator1.secret()).get("/v1/nodes").then().statusCode(200);
    }

    @Test
    void anAdminCannotReadAnotherTenantsJobs() {
        String id = read(as(member2.secret()).body(Map.of("language", "bash", "code", "echo t2")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        as(admin1.secret()).get("/v1/jobs/" + id).then().statusCode(404).body(json("detail", equalTo("no job " + id)));
        as(admin1.secret()).get("/v1/jobs").then().statusCode(200).body(json("items.id", not(hasItem(id))));
        as(admin1.secret()).get("/v1/jobs?tenant=" + t2).then().statusCode(404);
        as(admin1.secret()).get("/v1/audit?tenant=" + t2).then().statusCode(404);
        // the operator reviews any tenant through ?tenant=, and only so
        as(OPERATOR).get("/v1/jobs?tenant=" + t2).then().statusCode(200).body(json("items.id", hasItem(id)));
        as(OPERATOR).get("/v1/jobs").then().statusCode(200).body(json("items.id", not(hasItem(id))));
        as(OPERATOR).get("/v1/audit?tenant=" + t2 + "&job_id=" + id).then().statusCode(200)
                .body(json("items.kind", hasItem("submitted"))).body(json("items.tenant_id", everyItem(equalTo(t2))));
        as(OPERATOR).get("/v1/jobs?tenant=" + UUID.randomUUID()).then().statusCode(404);
    }

    @Test
    void theOperatorRunsEveryTenant() {
        Key byOperator = key(OPERATOR, t2, "admin");
        as(byOperator.secret()).get("/v1/jobs").then().statusCode(200);
        as(OPERATOR).delete("/v1/admin/keys/" + member2.id()).then().statusCode(204);
        as(member2.secret()).get("/v1/jobs").then().statusCode(401);
        Key operator2 = key(OPERATOR, t2, "operator");
        as(operator2.secret()).get("/v1/nodes").then().statusCode(200);
        tenant("by-operator");
        as(OPERATOR).get("/v1/nodes").then().statusCode(200);
        List<Map<String, Object>> items = read(as(OPERATOR).get("/v1/audit?tenant=" + t2).then().statusCode(200).extract().asString(), "items");
        String operatorKey = actor(items, "key_created", byOperator.id());
        assertEquals(operatorKey, actor(items, "key_revoked", member2.id()));
        as(OPERATOR).body(Map.of("role", "member")).post("/v1/admin/tenants/" + UUID.randomUUID() + "/keys").then().statusCode(404);
    }

    /**
     * The roles table's auditor: reads its tenant's jobs and audit log; never submits, cancels or
     * reruns a job, makes a key, nor reads another tenant.
     */
    @Test
    void anAuditorReadsItsTenantButNeverActs() {
        Key auditor2 = key(OPERATOR, t2, "auditor");
        String id = read(as(member2.secret()).body(Map.of("language", "bash", "code", "sleep 30")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        as(auditor2.secret()).get("/v1/jobs/" + id).then().statusCode(200);
        as(auditor2.secret()).get("/v1/jobs").then().statusCode(200).body(json("items.id", hasItem(id)));
        as(auditor2.secret()).get("/v1/audit?job_id=" + id).then().statusCode(200).body(json("items.kind", hasItem("submitted")));
        as(auditor2.secret()).post("/v1/jobs/" + id + "/cancel").then().statusCode(403).contentType("application/problem+json");
        as(auditor2.secret()).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then().statusCode(403);
        as(auditor2.secret()).post("/v1/jobs/" + id + "/rerun").then().statusCode(403);
        as(auditor2.secret()).body(Map.of("role", "member")).post("/v1/admin/tenants/" + t2 + "/keys").then().statusCode(403);
        as(auditor2.secret()).get("/v1/jobs?tenant=" + t1).then().statusCode(404);
        as(member2.secret()).get("/v1/jobs/" + id).then().statusCode(200).body(json("status", not(equalTo("cancelled"))));
        as(member2.secret()).post("/v1/jobs/" + id + "/cancel").then().statusCode(202);
    }

    /**
     * Keys made before the operator role: the bootstrap key of such a database is an admin key. The
     * start-up promotes it (given its secret, as the configuration gives it); any other admin key
     * keeps working as an admin of its own tenant, and a key of another tenant is never promoted.
     */
    @Test
    void theBootstrapKeyOfAnOlderDatabaseIsPromotedAndOtherAdminKeysStayAdmins() throws Exception {
        String bootstrap = "nx_legacy_bootstrap_" + UUID.randomUUID();
        String admin = "nx_legacy_admin_" + UUID.randomUUID();
        String defaultTenant;
        try (Connection c = db.getConnection();
                PreparedStatement q = c.prepareStatement("SELECT id FROM tenants WHERE name = 'default'");
                ResultSet rs = q.executeQuery()) {
            rs.next();
            defaultTenant = rs.getString(1);
        }
        legacyAdminKey(defaultTenant, bootstrap);
        legacyAdminKey(defaultTenant, admin);
        as(bootstrap).get("/v1/nodes").then().statusCode(403);

        tenants.ensureOperatorKey(bootstrap);
        tenants.ensureOperatorKey(admin1.secret());

        as(bootstrap).get("/v1/nodes").then().statusCode(200);
        as(bootstrap).body(Map.of("name", "by-promoted-" + UUID.randomUUID().toString().substring(0, 8)))
                .post("/v1/admin/tenants").then().statusCode(201);
        as(admin).get("/v1/jobs").then().statusCode(200);
        key(admin, defaultTenant, "member");
        as(admin).get("/v1/nodes").then().statusCode(403);
        as(admin).body(Map.of("name", "by-legacy-" + UUID.randomUUID().toString().substring(0, 8)))
                .post("/v1/admin/tenants").then().statusCode(403);
        as(admin).body(Map.of("role", "member")).post("/v1/admin/tenants/" + t2 + "/keys").then().statusCode(404);
        as(admin1.secret()).get("/v1/nodes").then().statusCode(403);
    }

    /** A key row as the service before V22 wrote it. */
    private void legacyAdminKey(String tenantId, String secret) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO api_keys (id, tenant_id, role, secret_hash) VALUES (?, ?, 'admin', ?)")) {
            insert.setObject(1, UUID.randomUUID());
            insert.setObject(2, UUID.fromString(tenantId));
            insert.setBytes(3, MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
            insert.executeUpdate();
        }
    }

    private static String actor(List<Map<String, Object>> items, String kind, String keyId) {
        return items.stream().filter(e -> kind.equals(e.get("kind")) && keyId.equals(((Map<?, ?>) e.get("detail")).get("key_id")))
                .map(e -> (String) e.get("key_id")).findFirst().orElseThrow(() -> new AssertionError("no " + kind + " of " + keyId));
    }

    private long keys(String tenantId) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement("SELECT count(*) FROM api_keys WHERE tenant_id = ?")) {
            q.setObject(1, UUID.fromString(tenantId));
            return count(q);
        }
    }

    private static long count(PreparedStatement q) throws SQLException {
        try (ResultSet rs = q.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

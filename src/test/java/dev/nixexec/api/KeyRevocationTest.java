package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.tenant;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.tenant.TenantCache;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Keys are kept by each node for a while (nixexec.auth.cache-ttl); a revoke made on another node
 * must still stop the key here at once, through the notification that node sends.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class KeyRevocationTest {

    @Inject
    AgroalDataSource db;

    @Inject
    Tenants tenants;

    @Test
    void aKeyRevokedOnAnotherNodeStopsWorkingHereWhenItsNotificationArrives() throws Exception {
        String tenantId = tenant("revoke");
        Response created = as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenantId + "/keys");
        String key = created.path("key");
        UUID keyId = UUID.fromString(created.path("id"));
        long kept = System.nanoTime() + 5_000_000_000L;
        do {
            as(key).get("/v1/jobs").then().statusCode(200);
        } while (tenants.kept(key).isEmpty() && System.nanoTime() < kept);
        assertTrue(tenants.kept(key).isPresent(), "a node that hears revokes keeps a key it looked up");

        // A change by hand, with no notification: the kept key still works (so it is kept)…
        try (Connection c = db.getConnection();
                PreparedStatement revoke = c.prepareStatement("UPDATE api_keys SET revoked_at = now() WHERE id = ?")) {
            revoke.setObject(1, keyId);
            assertEquals(1, revoke.executeUpdate());
        }
        as(key).get("/v1/jobs").then().statusCode(200);

        // …until another node's revoke notification arrives.
        try (Connection c = db.getConnection();
                PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, '')")) {
            notify.setString(1, TenantCache.CHANNEL);
            notify.execute();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> as(key).get("/v1/jobs").statusCode(), equalTo(401));
    }

    @Test
    void aKeyRevokedOnThisNodeStopsWorkingAtOnce() {
        String tenantId = tenant("revoke-here");
        Response created = as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenantId + "/keys");
        String key = created.path("key");
        for (int i = 0; i < 3; i++) {
            as(key).get("/v1/jobs").then().statusCode(200);
        }
        as(ADMIN).delete("/v1/admin/keys/" + created.path("id")).then().statusCode(204);
        as(key).get("/v1/jobs").then().statusCode(401);
        as(key).header("Accept", "application/json, text/event-stream").body("{}").post("/mcp").then().statusCode(401);
    }
}

package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.tenant.TenantCache;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.vertx.core.MultiMap;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * An expired key is refused exactly as an unknown one, wherever a key is taken: REST, MCP, the UI
 * sign-in, the attach WebSocket, and a browser session signed in with it. A key this node keeps
 * ({@code nixexec.auth.cache-ttl}) stops at its expiry too: the expiry is checked on every use.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class KeyExpiryTest {

    static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    @Inject
    AgroalDataSource db;

    @Inject
    Tenants tenants;

    record Key(String id, String secret) {
    }

    static Key key(String tenantId, OffsetDateTime expiresAt) {
        JsonPath made = as(ADMIN).body(Map.of("role", "member", "expires_at", expiresAt.toString()))
                .post("/v1/admin/tenants/" + tenantId + "/keys").then().statusCode(201).extract().jsonPath();
        return new Key(made.getString("id"), made.getString("key"));
    }

    @Test
    void anExpiredKeyIsRefusedEverywhereAsAnUnknownOne() throws Exception {
        String t = tenant("expired");
        Key key = key(t, OffsetDateTime.now(ZoneOffset.UTC).plusHours(1));
        String session = signIn(key.secret());
        given().redirects().follow(false).cookie("nx_ui_session", session).get("/ui/jobs").then().statusCode(200);
        expireByHand(key.id());
        // the sign-in left the key kept on this node; a change by hand is heard once announced
        try (Connection c = db.getConnection(); PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, '')")) {
            notify.setString(1, TenantCache.CHANNEL);
            notify.execute();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> as(key.secret()).get("/v1/jobs").statusCode(), equalTo(401));

        String unknown = read(as("nx_not_a_key").get("/v1/jobs").then().statusCode(401).extract().asString(), "detail");
        as(key.secret()).get("/v1/jobs").then().statusCode(401).contentType("application/problem+json")
                .body(json("detail", equalTo(unknown)));
        assertMcpRefuses(key.secret());
        given().redirects().follow(false).cookie("nx_ui_session", session).get("/ui/jobs").then().statusCode(303)
                .header("Location", containsString("/ui/login"));
        signInRefused(key.secret());
        as(key.secret()).get("/v1/sessions/" + UUID.randomUUID() + "/attach").then().statusCode(401);
    }

    @Test
    void aKeptKeyStopsAtItsExpiry() {
        String t = tenant("expiring");
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(6);
        Key key = key(t, expiresAt);
        long kept = System.nanoTime() + 2_000_000_000L;
        do {
            as(key.secret()).get("/v1/jobs").then().statusCode(200);
        } while (tenants.kept(key.secret()).isEmpty() && System.nanoTime() < kept);
        assertTrue(tenants.kept(key.secret()).isPresent(), "this node keeps the key (for nixexec.auth.cache-ttl, 10s)");

        await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(expiresAt.toInstant()));
        // well within the cache's 10 s: a node that did not check the expiry would still admit it
        assertTrue(tenants.kept(key.secret()).isEmpty());
        as(key.secret()).get("/v1/jobs").then().statusCode(401);
        assertMcpRefuses(key.secret());
    }

    private static void assertMcpRefuses(String secret) {
        McpAssured.newStreamableClient().setAdditionalHeaders(m -> MultiMap.caseInsensitiveMultiMap()
                .add("Authorization", "Bearer " + secret)).setExpectConnectFailure(r -> assertEquals(401, r.statusCode()))
                .build().connect();
        as(secret).header("Accept", "application/json, text/event-stream").body("{}").post("/mcp").then().statusCode(401);
    }

    private void expireByHand(String keyId) throws Exception {
        try (Connection c = db.getConnection();
                PreparedStatement expire = c.prepareStatement("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = ?")) {
            expire.setObject(1, UUID.fromString(keyId));
            assertEquals(1, expire.executeUpdate());
        }
    }

    /** Signs in at /ui/login; the session cookie. */
    private static String signIn(String key) {
        Response signedIn = login(key);
        signedIn.then().statusCode(303).header("Location", containsString("/ui/jobs"));
        return signedIn.getCookie("nx_ui_session");
    }

    private static void signInRefused(String key) {
        login(key).then().statusCode(401).body(containsString("unknown or revoked"));
    }

    private static Response login(String key) {
        Response form = given().get("/ui/login");
        form.then().statusCode(200);
        Matcher csrf = CSRF.matcher(form.asString());
        assertTrue(csrf.find());
        return given().redirects().follow(false).cookie("nx_ui_login", form.getCookie("nx_ui_login"))
                .formParam("csrf", csrf.group(1)).formParam("key", key).post("/ui/login");
    }
}

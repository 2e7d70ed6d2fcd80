package dev.nixexec.workspace;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.JsonBody.read;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Idle MCP session workspaces expire (default TTL 24h; age is simulated by moving timestamps back
 * in the database): only a session's own, never one created by name, never one with an open job
 * or a job that ended within the TTL; deleted as {@code DELETE /v1/workspaces/{id}} does, with an
 * audit record, once even when several nodes sweep at once. Real PostgreSQL, nix and bubblewrap.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class WorkspaceSessionExpiryTest {

    @Inject
    EntityManager em;

    @Inject
    WorkspaceService workspaces;

    @Inject
    SessionWorkspaceExpiry expiry;


    /** A new tenant's id and member key. */
    static String[] tenant(Map<String, Object> policy) {
        String id = read(as(ADMIN).body(Map.of("name", "ttl-" + UUID.randomUUID().toString().substring(0, 8), "policy", policy))
                .post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
        String key = read(as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + id + "/keys")
                .then().statusCode(201).extract().asString(), "key");
        return new String[] {id, key};
    }

    static Caller member(String tenant) {
        return new Caller(UUID.fromString(tenant), null, Role.MEMBER);
    }

    static void upload(String key, UUID ws, String path, String content) {
        as(key).contentType("application/octet-stream").body(content.getBytes(StandardCharsets.UTF_8))
                .put("/v1/workspaces/" + ws + "/files/" + path).then().statusCode(200);
    }

    void sql(String statement, Object... parameters) {
        QuarkusTransaction.requiringNew().run(() -> {
            var query = em.createNativeQuery(statement);
            for (int i = 0; i < parameters.length; i++) {
                query.setParameter(i + 1, parameters[i]);
            }
            query.executeUpdate();
        });
    }

    /** Moves the workspace's last use two days back, past the 24h default TTL. */
    void age(UUID ws) {
        sql("UPDATE workspaces SET used_at = now() - interval '2 days', updated_at = now() - interval '2 days', "
                + "created_at = now() - interval '2 days' WHERE id = ?1", ws);
    }

    boolean exists(UUID ws) {
        return QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT count(*) FROM workspaces WHERE id = ?1").setParameter(1, ws).getSingleResult()).intValue() == 1);
    }

    long expiredRecords(UUID ws) {
        return QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT count(*) FROM audit_events WHERE kind = 'workspace_expired' AND detail ->> 'workspace_id' = ?1")
                .setParameter(1, ws.toString()).getSingleResult()).longValue());
    }

    String submit(String key, Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    String status(String key, String job) {
        return read(as(key).get("/v1/jobs/" + job).then().statusCode(200).extract().asString(), "status");
    }

    void awaitStatus(String key, String job, String wanted) {
        await("job " + job + " to become " + wanted).atMost(Duration.ofSeconds(60)).until(() -> status(key, job), wanted::equals);
    }

    @Test
    void anIdleSessionWorkspaceIsDeletedAFreshOneAndANamedOneAreKept() {
        String[] t = tenant(Map.of());
        UUID idle = workspaces.session(member(t[0]), "mcp-session-idle").id();
        upload(t[1], idle, "data.csv", "x,y\n1,2\n");
        UUID fresh = workspaces.session(member(t[0]), "mcp-session-fresh").id();
        UUID named = UUID.fromString(read(as(t[1]).body(Map.of("name", "project")).post("/v1/workspaces")
                .then().statusCode(201).extract().asString(), "id"));
        // a name a session would use does not make a workspace created by name a session's
        UUID namedLikeASession = UUID.fromString(read(as(t[1]).body(Map.of("name", "mcp-session-by-hand"))
                .post("/v1/workspaces").then().statusCode(201).extract().asString(), "id"));
        age(idle);
        age(named);
        age(namedLikeASession);

        expiry.expire("test-node");

        assertFalse(exists(idle), "the idle session workspace was deleted");
        as(t[1]).get("/v1/workspaces/" + idle).then().statusCode(404);
        assertEquals(1, expiredRecords(idle));
        assertTrue(exists(fresh), "a session workspace used within the TTL is kept");
        assertTrue(exists(named), "a workspace created by name never expires");
        assertTrue(exists(namedLikeASession), "a workspace created by name never expires, whatever its name");
        assertEquals(0, expiredRecords(fresh) + expiredRecords(named) + expiredRecords(namedLikeASession));
        // its files went with it; their content is left to the clean-up's hour of grace
        long rows = QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT count(*) FROM workspace_files WHERE workspace_id = ?1").setParameter(1, idle)
                .getSingleResult()).longValue());
        assertEquals(0, rows);
        long blobs = QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                "SELECT count(*) FROM workspace_blobs WHERE tenant_id = ?1").setParameter(1, UUID.fromString(t[0]))
                .getSingleResult()).longValue());
        assertEquals(1, blobs, "the content stays for the clean-up's grace");
    }

    @Test
    void readingOrWritingAFileIsAUse() {
        String[] t = tenant(Map.of());
        UUID read = workspaces.session(member(t[0]), "mcp-session-read").id();
        upload(t[1], read, "a.txt", "a");
        UUID listed = workspaces.session(member(t[0]), "mcp-session-listed").id();
        UUID written = workspaces.session(member(t[0]), "mcp-session-written").id();
        age(read);
        age(listed);
        age(written);
        as(t[1]).get("/v1/workspaces/" + read + "/files/a.txt").then().statusCode(200);
        as(t[1]).get("/v1/workspaces/" + listed + "/files").then().statusCode(200);
        upload(t[1], written, "b.txt", "b");

        expiry.expire("test-node");

        assertTrue(exists(read), "read just now");
        assertTrue(exists(listed), "listed just now");
        assertTrue(exists(written), "written just now");
    }

    @Test
    void aSessionWorkspaceWithAnOpenOrRecentJobIsKept() {
        String[] held = tenant(Map.of("max_running", 0));
        UUID queuedOn = workspaces.session(member(held[0]), "mcp-session-queued").id();
        String queued = submit(held[1], Map.of("language", "bash", "code", "true", "workspace", queuedOn.toString()));
        String[] t = tenant(Map.of());
        UUID runningOn = workspaces.session(member(t[0]), "mcp-session-running").id();
        String running = submit(t[1], Map.of("language", "bash", "code", "sleep 60", "workspace", runningOn.toString()));
        awaitStatus(t[1], running, "running");
        age(queuedOn);
        age(runningOn);

        expiry.expire("test-node");

        assertEquals("queued", status(held[1], queued));
        assertTrue(exists(queuedOn), "a workspace with a queued job is kept");
        assertTrue(exists(runningOn), "a workspace with a running job is kept");

        as(t[1]).post("/v1/jobs/" + running + "/cancel").then().statusCode(202);
        awaitStatus(t[1], running, "cancelled");
        age(runningOn);
        expiry.expire("test-node");
        assertTrue(exists(runningOn), "a job that ended within the TTL counts as a use");

        sql("UPDATE jobs SET finished_at = now() - interval '2 days' WHERE id = ?1", UUID.fromString(running));
        expiry.expire("test-node");
        assertFalse(exists(runningOn), "idle for the TTL since its job ended: deleted");
        as(held[1]).post("/v1/jobs/" + queued + "/cancel").then().statusCode(202);
    }

    @Test
    void nodesSweepingAtOnceDeleteEachWorkspaceOnce() {
        String[] t = tenant(Map.of());
        List<UUID> idle = java.util.stream.IntStream.range(0, 30)
                .mapToObj(i -> workspaces.session(member(t[0]), "mcp-session-many-" + i).id()).toList();
        sql("UPDATE workspaces SET used_at = now() - interval '2 days' WHERE tenant_id = ?1", UUID.fromString(t[0]));

        var sweeps = java.util.stream.IntStream.range(0, 4)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> expiry.expire("node-" + i))).toList();
        sweeps.forEach(CompletableFuture::join);

        for (UUID ws : idle) {
            assertFalse(exists(ws), "deleted: " + ws);
            assertEquals(1, expiredRecords(ws), "one audit record for " + ws);
        }
    }
}

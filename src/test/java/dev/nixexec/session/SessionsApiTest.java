package dev.nixexec.session;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.awaitEvent;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sessions over REST end to end: real PostgreSQL, real nix (the offline fixture), real bubblewrap.
 * The refusals first (each stores nothing), then a session built once and commands run in it, its
 * files kept between commands, its read-only paths, its destruction and its idle expiry.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SessionsApiTest {

    @Inject
    EntityManager em;

    @Inject
    SessionExpiry expiry;

    String tenantA;
    String memberA;
    String auditorA;
    String memberB;

    @BeforeEach
    void tenants() {
        tenantA = tenant("sa");
        memberA = key(tenantA, "member");
        auditorA = key(tenantA, "auditor");
        memberB = key(tenant("sb"), "member");
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void anUnknownProfileIsRefusedAndNothingIsStored() {
        as(memberA).body(Map.of("profile", "no-such-profile")).post("/v1/sessions").then().statusCode(400)
                .body(json("errors[0].field", equalTo("profile")))
                .body(json("errors[0].message", containsString("unknown profile 'no-such-profile'")))
                .body(json("errors[0].message", containsString("strict")));
        noSessionsAndNoWorkspaces(memberA);
    }

    @Test
    void packagesWithAProfileAreRefused() {
        as(memberA).body(Map.of("packages", List.of("hello"), "profile", "strict")).post("/v1/sessions").then()
                .statusCode(400).body(json("errors[0].field", equalTo("packages")))
                .body(json("errors[0].message", containsString("packages and profile")));
        noSessionsAndNoWorkspaces(memberA);
    }

    @Test
    void aWritablePathOutsideTheSetIsRefused() {
        as(memberA).body(Map.of("spec", Map.of("packages", List.of(), "writable", List.of("/workspace", "/etc"))))
                .post("/v1/sessions").then().statusCode(400)
                .body(json("errors[0].field", equalTo("spec.writable[1]")))
                .body(json("errors[0].message", containsString("'/etc' cannot be made writable")));
        noSessionsAndNoWorkspaces(memberA);
    }

    @Test
    void aProfileWithNetworkNeedsATenantPolicyThatAllowsIt() {
        as(memberA).body(Map.of("profile", "build-install")).post("/v1/sessions").then().statusCode(400)
                .body(json("errors[0].field", equalTo("profile")))
                .body(json("errors[0].message", containsString("profile 'build-install' needs network \"full\"")));
        noSessionsAndNoWorkspaces(memberA);
    }

    @Test
    void anAuditorReadsButNeverCreatesRunsOrDestroys() {
        String id = created(memberA, Map.of("name", "audited"));
        as(auditorA).body(Map.of()).post("/v1/sessions").then().statusCode(403)
                .body(json("detail", containsString("auditor key cannot create sessions")));
        as(auditorA).body(Map.of("command", List.of("true"))).post("/v1/sessions/" + id + "/exec").then().statusCode(403);
        as(auditorA).delete("/v1/sessions/" + id).then().statusCode(403);
        as(auditorA).get("/v1/sessions/audited").then().statusCode(200).body(json("id", equalTo(id)));
    }

    @Test
    void anotherTenantsSessionIsNotFound() {
        String id = created(memberA, Map.of("name", "mine"));
        as(memberB).get("/v1/sessions/" + id).then().statusCode(404);
        as(memberB).get("/v1/sessions/mine").then().statusCode(404);
        as(memberB).body(Map.of("command", List.of("true"))).post("/v1/sessions/" + id + "/exec").then().statusCode(404);
        as(memberB).delete("/v1/sessions/" + id).then().statusCode(404);
        as(memberB).get("/v1/sessions").then().statusCode(200).body(json("", empty()));
        as(memberA).get("/v1/sessions/" + id).then().statusCode(200);
    }

    @Test
    void aFailedBuildFailsTheSessionWithTheBuildsReason() {
        JsonPath session = as(memberA).body(Map.of("packages", List.of("noSuchPackageAnywhere"))).post("/v1/sessions?wait=60")
                .then().statusCode(201).extract().jsonPath();
        assertEquals("failed", session.getString("status"), session.prettify());
        assertEquals(null, (Object) session.get("environment"));
        org.hamcrest.MatcherAssert.assertThat(session.getString("error"), containsString("noSuchPackageAnywhere"));
        as(memberA).body(Map.of("command", List.of("true"))).post("/v1/sessions/" + session.getString("id") + "/exec")
                .then().statusCode(409).body(json("detail", containsString("failed to build its environment")));
    }

    @Test
    void sessionsPerTenantAreCapped() {
        for (int i = 0; i < 3; i++) {
            as(memberA).body(Map.of()).post("/v1/sessions").then().statusCode(201);
        }
        as(memberA).body(Map.of("name", "one-too-many")).post("/v1/sessions").then().statusCode(429)
                .contentType(startsWith("application/problem+json"))
                .body(json("detail", containsString("the tenant has 3 live sessions, its cap is 3")));
        as(memberA).get("/v1/sessions").then().body(json("size()", equalTo(3))).body(json("name", org.hamcrest.Matchers.not(hasItem("one-too-many"))));
    }

    @Test
    void aNameNamesOneLiveSession() {
        created(memberA, Map.of("name", "twice"));
        as(memberA).body(Map.of("name", "twice")).post("/v1/sessions").then().statusCode(409)
                .body(json("detail", containsString("a session named 'twice' exists")));
    }

    // ---------------------------------------------------------------- happy paths

    @Test
    void aSessionIsBuiltOnceAndRunsCommandsFromItsPathWithNoShell() {
        JsonPath session = as(memberA).body(Map.of("packages", List.of("hello"), "name", "work",
                "env", Map.of("GREETING", "from the session"), "agent", "claude", "description", "a test"))
                .post("/v1/sessions?wait=60").then().statusCode(201).extract().jsonPath();
        assertEquals("ready", session.getString("status"), session.prettify());
        String id = session.getString("id");
        org.hamcrest.MatcherAssert.assertThat(session.getString("environment.store_path"), startsWith("/nix/store/"));
        org.hamcrest.MatcherAssert.assertThat(session.getString("environment.nixpkgs_revision"), notNullValue());
        assertEquals(List.of("hello"), session.getList("packages"));
        assertEquals("off", session.getString("network"));
        assertEquals(List.of("/workspace", "/home/sandbox", "/cache", "/tmp"), session.getList("writable"));

        as(memberA).get("/v1/sessions/work").then().statusCode(200).body(json("id", equalTo(id)));
        as(memberA).get("/v1/sessions").then().statusCode(200).body(json("id", hasItem(id)));

        JsonPath hello = exec(memberA, "work", Map.of("command", List.of("hello")));
        assertEquals("succeeded", hello.getString("status"), hello.prettify());
        assertEquals("Hello, world!\n", hello.getString("stdout"));
        assertEquals(id, hello.getString("session_id"));
        assertEquals(session.getString("environment.store_path"), hello.getString("environment.store_path"),
                "the exec runs in the environment the session built");
        as(memberA).get("/v1/jobs/" + hello.getString("id")).then().body(json("session_id", equalTo(id)));

        JsonPath literal = exec(memberA, id, Map.of("command", List.of("echo", "$GREETING; it's `id` *")));
        assertEquals("$GREETING; it's `id` *\n", literal.getString("stdout"), "argv words reach the program as given");

        JsonPath code = exec(memberA, id, Map.of("language", "bash", "code", "echo \"$GREETING / $EXTRA\"",
                "env", Map.of("EXTRA", "from the exec")));
        assertEquals("from the session / from the exec\n", code.getString("stdout"));
    }

    @Test
    void filesPersistBetweenExecsAndTmpIsFreshEachTime() {
        String id = created(memberA, Map.of());
        JsonPath wrote = exec(memberA, id, Map.of("command", List.of("bash", "-c",
                "echo one > /workspace/a; echo two > ~/b; mkdir -p /cache/c; echo three > /cache/c/d; echo four > /tmp/e;"
                        + " mkdir -p /workspace/out; echo art > /workspace/out/r.txt")));
        assertEquals("succeeded", wrote.getString("status"), wrote.prettify());
        assertEquals("workspace/out/r.txt", wrote.getString("artifacts[0].name"));
        JsonPath read = exec(memberA, id, Map.of("command", List.of("bash", "-c",
                "cat /workspace/a /home/sandbox/b /cache/c/d; ls -A /tmp; echo \"$HOME\"")));
        assertEquals("one\ntwo\nthree\n/home/sandbox\n", read.getString("stdout"), read.prettify());
        // out/r.txt is still there but not this command's: it is not returned again
        assertEquals(List.of(), read.getList("artifacts"), read.prettify());
    }

    @Test
    void pathsOutsideTheWritableSetAreReadOnly() {
        String id = created(memberA, Map.of("spec", Map.of("packages", List.of(), "writable", List.of("/workspace"))));
        as(memberA).get("/v1/sessions/" + id).then().body(json("writable", equalTo(List.of("/workspace"))));
        JsonPath home = exec(memberA, id, Map.of("command", List.of("bash", "-c", "echo x > /home/sandbox/x")));
        assertEquals("failed", home.getString("status"));
        org.hamcrest.MatcherAssert.assertThat(home.getString("stderr"), containsString("Read-only file system"));
        JsonPath tmp = exec(memberA, id, Map.of("command", List.of("touch", "/tmp/x")));
        org.hamcrest.MatcherAssert.assertThat(tmp.getString("stderr"), containsString("Read-only file system"));
        JsonPath work = exec(memberA, id, Map.of("command", List.of("bash", "-c", "echo ok > /workspace/ok; cat /workspace/ok")));
        assertEquals("ok\n", work.getString("stdout"), work.prettify());
    }

    @Test
    void destroyingCancelsRunningExecsDeletesTheFilesAndRefusesMore() throws Exception {
        String id = created(memberA, Map.of("name", "doomed"));
        exec(memberA, id, Map.of("command", List.of("bash", "-c", "echo kept > /workspace/f")));
        String running = read(as(memberA).body(Map.of("command", List.of("bash", "-c", "echo started; sleep 60")))
                .post("/v1/sessions/" + id + "/exec").then().statusCode(201).extract().asString(), "id");
        awaitEvent(memberA, running, "started");
        as(memberA).delete("/v1/sessions/doomed").then().statusCode(204);
        as(memberA).get("/v1/jobs/" + running + "?wait=30").then().body(json("status", equalTo("cancelled")));
        as(memberA).get("/v1/sessions/" + id).then().statusCode(200).body(json("status", equalTo("destroyed")));
        as(memberA).get("/v1/workspaces/session-" + id).then().statusCode(404);
        as(memberA).body(Map.of("command", List.of("true"))).post("/v1/sessions/" + id + "/exec").then().statusCode(409)
                .body(json("detail", containsString("was destroyed")));
        as(memberA).get("/v1/sessions").then().body(json("id", org.hamcrest.Matchers.not(hasItem(id))));
        as(auditorA).get("/v1/audit").then().statusCode(200).body(json("items.kind", hasItem("session_destroyed")))
                .body(json("items.kind", hasItem("session_created")));
        created(memberA, Map.of("name", "doomed"));
    }

    @Test
    void anIdleSessionExpiresWithItsFiles() {
        String idle = created(memberA, Map.of("idle_ttl", "10m"));
        String busy = created(memberA, Map.of());
        as(memberA).get("/v1/sessions/" + idle).then().body(json("idle_ttl", equalTo(600)));
        String running = read(as(memberA).body(Map.of("command", List.of("sleep", "60")))
                .post("/v1/sessions/" + busy + "/exec").then().statusCode(201).extract().asString(), "id");
        sql("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id IN (?1, ?2)",
                UUID.fromString(idle), UUID.fromString(busy));
        expiry.expire();
        as(memberA).get("/v1/sessions/" + idle).then().body(json("status", equalTo("destroyed")));
        as(memberA).get("/v1/workspaces/session-" + idle).then().statusCode(404);
        as(memberA).get("/v1/sessions/" + busy).then().body(json("status", equalTo("ready")));
        as(auditorA).get("/v1/audit").then().body(json("items.kind", hasItem("session_expired")));
        as(memberA).post("/v1/jobs/" + running + "/cancel").then().statusCode(202);
    }

    @Test
    void idleTtlIsBounded() {
        as(memberA).body(Map.of("idle_ttl", "9999h")).post("/v1/sessions").then().statusCode(400)
                .body(json("errors[0].field", equalTo("idle_ttl")));
    }

    // ---------------------------------------------------------------- helpers

    /** A ready session; its id. */
    static String created(String key, Map<String, Object> body) {
        JsonPath session = as(key).body(body).post("/v1/sessions?wait=60").then().statusCode(201).extract().jsonPath();
        assertEquals("ready", session.getString("status"), session.prettify());
        return session.getString("id");
    }

    static JsonPath exec(String key, String session, Map<String, Object> body) {
        return as(key).body(body).post("/v1/sessions/" + session + "/exec?wait=60").then().statusCode(200)
                .extract().jsonPath();
    }

    static void noSessionsAndNoWorkspaces(String key) {
        as(key).get("/v1/sessions").then().statusCode(200).body(json("", empty()));
        as(key).get("/v1/workspaces").then().statusCode(200).body(json("items", empty()));
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
}

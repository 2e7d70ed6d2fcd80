package dev.nixexec.session;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/environments} end to end: real PostgreSQL, real nix (the offline fixture), real
 * bubblewrap. The refusals first, then an environment built ahead that a later job and a later
 * session find built (a cache hit on the same store path).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class EnvironmentsApiTest {

    String member;
    String auditor;
    String otherMember;

    @BeforeEach
    void tenants() {
        String tenant = tenant("env");
        member = key(tenant, "member");
        auditor = key(tenant, "auditor");
        otherMember = key(tenant("env-other"), "member");
    }

    @Test
    void refusalsStoreNoJob() {
        int before = as(member).get("/v1/jobs").then().statusCode(200).extract().jsonPath().getList("items").size();
        as(member).body(Map.of("packages", List.of("hello"), "profile", "strict")).post("/v1/environments").then()
                .statusCode(400).body(json("errors[0].field", equalTo("profile")))
                .body(json("errors[0].message", containsString("not packages and profile")));
        as(member).body(Map.of("language", "cobol")).post("/v1/environments").then().statusCode(400)
                .body(json("errors[0].field", equalTo("language")));
        as(member).body(Map.of("profile", "no-such-profile")).post("/v1/environments").then().statusCode(400)
                .body(json("errors[0].field", equalTo("profile")));
        as(member).body(Map.of("spec", Map.of("packages", List.of("hello"), "writable", List.of("/etc"))))
                .post("/v1/environments").then().statusCode(400).body(json("errors[0].field", equalTo("spec.writable[0]")));
        as(member).body(Map.of("profile", "build-install")).post("/v1/environments").then().statusCode(400)
                .body(json("errors[0].message", containsString("needs a tenant policy")));
        as(auditor).body(Map.of("packages", List.of("hello"))).post("/v1/environments").then().statusCode(403);
        assertEquals(before, as(member).get("/v1/jobs").then().extract().jsonPath().getList("items").size());
    }

    @Test
    void anEnvironmentBuiltAheadIsAHitForTheJobAndTheSessionThatAskTheSame() {
        JsonPath built = as(member).body(Map.of("packages", List.of("hello", "jq")))
                .post("/v1/environments?wait=120").then().statusCode(200).extract().jsonPath();
        assertEquals("ready", built.getString("status"), built.prettify());
        String storePath = built.getString("store_path");
        assertTrue(storePath.startsWith("/nix/store/"), built.prettify());
        String id = built.getString("id");
        as(member).get("/v1/environments/" + id).then().statusCode(200).body(json("store_path", equalTo(storePath)));

        JsonPath job = as(member).body(Map.of("language", "bash", "packages", List.of("jq", "hello"), "code", "hello"))
                .post("/v1/jobs?wait=60").then().statusCode(200).extract().jsonPath();
        assertEquals("Hello, world!\n", job.getString("stdout"), job.prettify());
        assertEquals(storePath, job.getString("environment.store_path"));
        assertTrue(job.getBoolean("environment.cache_hit"), job.prettify());

        as(member).body(Map.of("packages", List.of("hello", "jq"))).post("/v1/sessions?wait=60").then()
                .statusCode(201).body(json("status", equalTo("ready"))).body(json("environment.store_path", equalTo(storePath)));
    }

    @Test
    void aBuildThatFailsSaysWhyAndOnlyBuildsAreShown() {
        JsonPath failed = as(member).body(Map.of("packages", List.of("no-such-package-here")))
                .post("/v1/environments?wait=60").then().statusCode(200).extract().jsonPath();
        assertEquals("failed", failed.getString("status"), failed.prettify());
        assertEquals("unknown_package", failed.getString("error.code"), failed.prettify());
        assertTrue(failed.getString("error.message").contains("no-such-package-here"), failed.prettify());

        String plainJob = read(as(member).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then()
                .statusCode(201).extract().asString(), "id");
        as(member).get("/v1/environments/" + plainJob).then().statusCode(404);
        as(otherMember).get("/v1/environments/" + failed.getString("id")).then().statusCode(404);
        as(member).get("/v1/environments/" + UUID.randomUUID()).then().statusCode(404);
        as(member).get("/v1/environments/not-an-id").then().statusCode(404)
                .body(json("detail", startsWith("no environment build")));
    }
}

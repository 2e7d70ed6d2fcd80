package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/profiles} and jobs that name a profile, over real HTTP, PostgreSQL, nix (the offline
 * fixture) and bubblewrap: every refusal first, then what works.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ProfilesApiTest {

    String tenantId;
    String admin;
    String member;
    String auditor;

    @BeforeEach
    void keys() {
        tenantId = tenant("profiles");
        admin = key(tenantId, "admin");
        member = key(tenantId, "member");
        auditor = key(tenantId, "auditor");
    }

    private static Map<String, Object> reviewProfile() {
        return Map.of("description", "reads code", "packages", List.of("hello"), "env", Map.of("GREETING", "hi"),
                "network", "off", "writable", List.of("/workspace", "/tmp"), "limits", Map.of("timeout", "20s"));
    }

    private void noJobs() {
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items", empty()));
    }

    // ------------------------------------------------------------------ refusals: profiles

    @Test
    void onlyAnAdminOrOperatorDefinesProfiles() {
        as(member).body(reviewProfile()).put("/v1/profiles/review").then().statusCode(403)
                .body(json("detail", containsString("an admin of the tenant")));
        as(auditor).body(reviewProfile()).put("/v1/profiles/review").then().statusCode(403);
        as(member).delete("/v1/profiles/review").then().statusCode(403);
        as(admin).get("/v1/profiles").then().statusCode(200).body(json("items.name", not(hasItem("review"))));
    }

    @Test
    void aBuiltInsNameCannotBeTaken() {
        as(admin).body(reviewProfile()).put("/v1/profiles/strict").then().statusCode(409)
                .body(json("detail", containsString("'strict' is a built-in profile")));
        as(admin).delete("/v1/profiles/strict").then().statusCode(409);
    }

    @Test
    void aNameOutsideTheGrammarIsRefused() {
        as(admin).body(reviewProfile()).put("/v1/profiles/Review").then().statusCode(400)
                .body(json("errors[0].field", equalTo("name")));
        as(admin).body(reviewProfile()).put("/v1/profiles/" + "a".repeat(64)).then().statusCode(400);
    }

    @Test
    void networkFullWithoutThePolicyIsRefusedNamingWhy() {
        as(admin).body(Map.of("packages", List.of("curl"), "network", "full")).put("/v1/profiles/net").then()
                .statusCode(400).body(json("errors.field", equalTo(List.of("network"))))
                .body(json("errors[0].message", containsString("needs a tenant policy that allows it (policy.network: true)")));
        as(admin).get("/v1/profiles").then().body(json("items.name", not(hasItem("net"))));
    }

    @Test
    void everyProblemOfABodyComesAtOnce() {
        as(admin).body(Map.of("description", "x".repeat(501), "packages", List.of("--expr"), "env", Map.of("lower", "x"),
                "writable", List.of("/etc"), "limits", Map.of("timeout", "100h"))).put("/v1/profiles/bad").then()
                .statusCode(400).body(json("errors.field", containsInAnyOrder("description", "packages[0]", "env",
                        "writable[0]", "limits.timeout")));
        as(admin).body(Map.of("packages", List.of(), "nme", "typo")).put("/v1/profiles/bad").then().statusCode(400);
        as(admin).get("/v1/profiles").then().body(json("items.name", not(hasItem("bad"))));
    }

    @Test
    void deletingAnUnknownProfileIsNotFound() {
        as(admin).delete("/v1/profiles/nothing-here").then().statusCode(404);
    }

    // ------------------------------------------------------------------ refusals: jobs under a profile

    @Test
    void aJobNamingAnUnknownProfileIsRefusedAndNothingIsStored() {
        as(member).body(Map.of("language", "bash", "code", "echo hi", "profile", "nope")).post("/v1/jobs").then()
                .statusCode(400).body(json("errors[0].field", equalTo("profile")))
                .body(json("errors[0].message", containsString("unknown profile 'nope'; this tenant's profiles: strict")));
        noJobs();
    }

    @Test
    void aJobCannotTurnOnTheNetworkItsProfileKeepsOff() {
        String open = key(tenant("profiles-net", Map.of("network", true)), "member");
        as(open).body(Map.of("language", "bash", "code", "echo hi", "profile", "strict", "network", "full"))
                .post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("network")))
                .body(json("errors[0].message", containsString("profile 'strict' keeps the network off")));
        as(open).get("/v1/jobs").then().body(json("items", empty()));
    }

    @Test
    void aNetworkProfileWithoutThePolicyIsRefusedNamingWhy() {
        as(member).body(Map.of("language", "bash", "code", "echo hi", "profile", "build-install")).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("profile")))
                .body(json("errors[0].message", containsString("needs a tenant policy that allows it")));
        noJobs();
    }

    @Test
    void aJobCannotOutlastItsProfilesTimeout() {
        as(admin).body(reviewProfile()).put("/v1/profiles/review").then().statusCode(201);
        as(member).body(Map.of("language", "bash", "code", "echo hi", "profile", "review", "timeout", 60))
                .post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("timeout")))
                .body(json("errors[0].message", equalTo("profile 'review' allows at most 20s")));
        noJobs();
    }

    // ------------------------------------------------------------------ what works

    @Test
    void anyKeyOfTheTenantListsTheBuiltInsFirst() {
        as(auditor).get("/v1/profiles").then().statusCode(200)
                .body(json("items.name", equalTo(List.of("strict", "offline-review", "build-install", "debug-network"))))
                .body(json("items[0].network", equalTo("off")))
                .body(json("items[0].packages", equalTo(List.of("coreutils", "bash", "cacert"))))
                .body(json("items[0].writable", equalTo(List.of("/workspace", "/tmp"))))
                .body(json("items[0].built_in", equalTo(true)))
                .body(json("items[2].network", equalTo("full")))
                .body(json("items[2].writable", equalTo(List.of("/workspace", "/home/sandbox", "/cache", "/tmp"))));
    }

    @Test
    void anAdminDefinesReplacesAndDeletesAProfileEachAudited() {
        as(admin).body(reviewProfile()).put("/v1/profiles/review").then().statusCode(201)
                .header("Location", "/v1/profiles/review")
                .body(json("name", equalTo("review"))).body(json("built_in", equalTo(false)))
                .body(json("limits.timeout", equalTo(20))).body(json("env.GREETING", equalTo("hi")));
        as(member).get("/v1/profiles").then().statusCode(200).body(json("items[4].name", equalTo("review")))
                .body(json("items[4].packages", equalTo(List.of("hello")))).body(json("items[4].description", equalTo("reads code")))
                .body(json("items[4].writable", equalTo(List.of("/workspace", "/tmp"))));
        as(admin).body(Map.of("packages", List.of("jq"))).put("/v1/profiles/review").then().statusCode(200)
                .body(json("packages", equalTo(List.of("jq")))).body(json("limits", equalTo(Map.of())))
                .body(json("writable", equalTo(List.of("/workspace", "/home/sandbox", "/cache", "/tmp"))));
        as(admin).delete("/v1/profiles/review").then().statusCode(204);
        as(admin).delete("/v1/profiles/review").then().statusCode(404);
        as(admin).get("/v1/audit").then().statusCode(200)
                .body(json("items.kind", hasItems("profile_created", "profile_replaced", "profile_deleted")));
    }

    @Test
    void anotherTenantNeverSeesTheProfileAndAnOperatorActsForAnyTenant() {
        as(ADMIN).body(reviewProfile()).put("/v1/profiles/review?tenant=" + tenantId).then().statusCode(201);
        as(member).get("/v1/profiles").then().body(json("items.name", hasItem("review")));
        String stranger = key(tenant("profiles-other"), "admin");
        as(stranger).get("/v1/profiles").then().body(json("items.name", not(hasItem("review"))));
        as(stranger).get("/v1/profiles?tenant=" + tenantId).then().statusCode(404);
        as(stranger).body(Map.of("language", "bash", "code", "hello", "profile", "review")).post("/v1/jobs").then()
                .statusCode(400).body(json("errors[0].field", equalTo("profile")));
    }

    @Test
    void aJobRunsUnderATenantProfileWithItsPackagesAndEnvAndItsOwnEnvWins() {
        as(admin).body(reviewProfile()).put("/v1/profiles/review").then().statusCode(201);
        as(member).body(Map.of("language", "bash", "code", "hello; echo \"$GREETING\"", "profile", "review"))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("status", equalTo("succeeded")))
                .body(json("stdout", equalTo("Hello, world!\nhi\n"))).body(json("packages", equalTo(List.of("hello"))));
        as(member).body(Map.of("language", "bash", "code", "echo \"$GREETING\"", "profile", "review",
                "env", Map.of("GREETING", "yo"), "timeout", 5)).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("status", equalTo("succeeded"))).body(json("stdout", equalTo("yo\n")));
    }

    @Test
    void aProfilesTimeoutIsTheDefaultOfItsJobs() {
        as(admin).body(Map.of("packages", List.of(), "limits", Map.of("timeout", 1))).put("/v1/profiles/quick").then()
                .statusCode(201).body(json("limits.timeout", equalTo(1)));
        as(member).body(Map.of("language", "bash", "code", "sleep 20", "profile", "quick")).post("/v1/jobs?wait=60")
                .then().statusCode(200).body(json("status", equalTo("timed_out")));
    }

    @Test
    void aJobRunsUnderABuiltInProfile() {
        as(member).body(Map.of("language", "bash", "code", "test -f \"$(dirname \"$(command -v bash)\")/../etc/ssl/certs/ca-bundle.crt\" && echo strict",
                "profile", "strict")).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("status", equalTo("succeeded"))).body(json("stdout", equalTo("strict\n")));
    }
}

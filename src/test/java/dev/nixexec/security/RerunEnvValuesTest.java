package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 2: a member may not read an admin's job's env values, so it may not rerun that
 * job either: the rerun would run with them, and the member planted the code that prints them
 * (in a workspace the job uses). A rerun by a key that may not read the job's env values is 403,
 * saying why, unless that key submitted the job (it sent the values itself); a job without env
 * values is any member's to rerun.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class RerunEnvValuesTest {

    String admin;
    String member;
    String otherMember;

    @BeforeEach
    void keys() {
        String tenant = tenant("rerun-env");
        admin = key(tenant, "admin");
        member = key(tenant, "member");
        otherMember = key(tenant, "member");
    }

    @Test
    void aMemberCannotRerunAJobWithEnvValuesItMayNotRead() {
        String job = submit(admin, Map.of("language", "bash", "code", "echo \"$DB_PASSWORD\"",
                "env", Map.of("DB_PASSWORD", "hunter2")));
        as(member).post("/v1/jobs/" + job + "/rerun").then().statusCode(403).contentType("application/problem+json")
                .body(json("detail", containsString("env values")));
        as(member).get("/v1/jobs?limit=100").then().statusCode(200).body(json("items.size()", equalTo(1)),
                json("items[0].id", equalTo(job)));
        as(admin).post("/v1/jobs/" + job + "/rerun").then().statusCode(201);
    }

    @Test
    void onlyTheSubmittingMemberRerunsItsJobWithEnvValues() {
        String job = submit(member, Map.of("language", "bash", "code", "echo \"$TOKEN\"", "env", Map.of("TOKEN", "t0k")));
        as(otherMember).post("/v1/jobs/" + job + "/rerun").then().statusCode(403)
                .contentType("application/problem+json").body(json("detail", containsString("env values")));
        as(member).post("/v1/jobs/" + job + "/rerun").then().statusCode(201).body(json("rerun_of", equalTo(job)));
    }

    @Test
    void aJobWithoutEnvValuesIsRerunByAMember() {
        String job = submit(admin, Map.of("language", "bash", "code", "echo plain"));
        as(member).post("/v1/jobs/" + job + "/rerun").then().statusCode(201)
                .body(json("rerun_of", equalTo(job)));
    }
}

package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Judge0 and Piston habits over REST, end to end (real PostgreSQL, nix, bubblewrap): batches,
 * byte-exact output in base64, arguments, reruns on the original's nixpkgs, list rows with previews.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class JudgeJobsApiTest {

    @Inject
    EntityManager em;

    String member;
    String auditor;
    String otherMember;

    @BeforeEach
    void tenants() {
        String tenant = tenant("judge", null);
        member = key(tenant, "member");
        auditor = key(tenant, "auditor");
        otherMember = key(tenant("judge-other", null), "member");
    }

    // ---------------------------------------------------------------- refusals

    @Test
    void aBatchOfMoreThanAHundredIsRefusedAndStoresNothing() {
        List<Map<String, Object>> jobs = Collections.nCopies(101, Map.of("language", "bash", "code", "true"));
        as(member).body(Map.of("jobs", jobs)).post("/v1/jobs/batch").then().statusCode(400)
                .contentType("application/problem+json").body(json("errors[0].field", equalTo("jobs")));
        as(member).body(Map.of("jobs", List.of())).post("/v1/jobs/batch").then().statusCode(400)
                .body(json("errors[0].field", equalTo("jobs")));
        as(member).body(Map.of()).post("/v1/jobs/batch").then().statusCode(400).body(json("errors[0].field", equalTo("jobs")));
        as(member).header("Idempotency-Key", "b-1").body(Map.of("jobs", List.of(Map.of("language", "bash", "code", "true"))))
                .post("/v1/jobs/batch").then().statusCode(400).body(json("errors[0].field", equalTo("Idempotency-Key")));
        as(auditor).body(Map.of("jobs", List.of(Map.of("language", "bash", "code", "true")))).post("/v1/jobs/batch")
                .then().statusCode(403);
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", equalTo(0)));
    }

    @Test
    void aBadEncodingIsRefused() {
        as(member).body(Map.of("language", "bash", "code", "true", "encoding", "latin-1")).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("encoding")));
        as(member).body(Map.of("language", "bash", "code", "true", "encoding", 64)).post("/v1/jobs")
                .then().statusCode(400).body(json("detail", containsString("encoding")));
    }

    @Test
    void badArgsAreRefused() {
        as(member).body(Map.of("language", "bash", "code", "true", "args", List.of("ok", "a\0b"))).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("args[1]")))
                .body(json("errors[0].message", containsString("NUL")));
        as(member).body(Map.of("language", "bash", "code", "true", "args", List.of("two\nlines"))).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("args[0]")));
        as(member).body(Map.of("language", "bash", "code", "true", "args", Collections.nCopies(101, "x")))
                .post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("args")));
        as(member).body(Map.of("language", "bash", "code", "true", "args", List.of("x".repeat(4097))))
                .post("/v1/jobs").then().statusCode(400).body(json("errors[0].field", equalTo("args[0]")));
        as(member).body(Map.of("language", "bash", "code", "true", "args", List.of(1, 2))).post("/v1/jobs")
                .then().statusCode(400);
        List<String> withNull = new ArrayList<>();
        withNull.add(null);
        as(member).body(Map.of("language", "bash", "code", "true", "args", withNull)).post("/v1/jobs")
                .then().statusCode(400).body(json("errors[0].field", equalTo("args[0]")));
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", equalTo(0)));
    }

    @Test
    void aRerunOfAnUnknownOrAnotherTenantsJobIsNotFound() {
        as(member).post("/v1/jobs/" + UUID.randomUUID() + "/rerun").then().statusCode(404)
                .contentType("application/problem+json");
        as(member).post("/v1/jobs/not-a-uuid/rerun").then().statusCode(404);
        String id = read(as(member).body(Map.of("language", "bash", "code", "echo mine")).post("/v1/jobs?wait=60")
                .then().statusCode(200).extract().asString(), "id");
        as(otherMember).post("/v1/jobs/" + id + "/rerun").then().statusCode(404);
        as(auditor).post("/v1/jobs/" + id + "/rerun").then().statusCode(403);
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", equalTo(1)));
    }

    @Test
    void badFieldsOfAListAreRefused() {
        as(member).get("/v1/jobs?fields=everything").then().statusCode(400).body(json("errors[0].field", equalTo("fields")));
    }

    // ---------------------------------------------------------------- what they do

    @Test
    void aBatchAnswersInOrderWithARefusalInPlaceOfItsJob() {
        List<Map<String, Object>> jobs = List.of(
                Map.of("language", "bash", "code", "echo first"),
                Map.of("language", "cobol", "code", "x"),
                Map.of("language", "python", "code", "print('third')", "args", List.of("a\nb")),
                Map.of("language", "python", "code", "print('fourth')"));
        JsonPath answer = as(member).body(Map.of("jobs", jobs)).post("/v1/jobs/batch").then().statusCode(201)
                .body(json("size()", equalTo(4)))
                .body(json("[0]", not(hasKey("error")))).body(json("[0].id", notNullValue()))
                .body(json("[1]", not(hasKey("id")))).body(json("[1].error.status", equalTo(400)))
                .body(json("[1].error.title", equalTo("Bad Request")))
                .body(json("[1].error.errors[0].field", equalTo("language")))
                .body(json("[2].error.errors[0].field", equalTo("args[0]")))
                .body(json("[3].id", notNullValue())).extract().jsonPath();
        as(member).get("/v1/jobs/" + answer.getString("[0].id") + "?wait=60").then().statusCode(200)
                .body(json("stdout", equalTo("first\n")));
        as(member).get("/v1/jobs/" + answer.getString("[3].id") + "?wait=60").then().statusCode(200)
                .body(json("stdout", equalTo("fourth\n")));
        // the refused ones stored nothing
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", equalTo(2)));
        // NUL is not text: it refuses the whole body, naming the job's field, as any JSON body (api.md Errors)
        List<Map<String, Object>> withNul = List.of(Map.of("language", "bash", "code", "echo kept"),
                Map.of("language", "python", "code", "print('x')", "args", List.of("a\0")));
        as(member).body(Map.of("jobs", withNul)).post("/v1/jobs/batch").then().statusCode(400)
                .body(json("errors[0].field", equalTo("jobs[1].args[0]")));
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", equalTo(2)));
        // all refused: nothing stored, 200
        as(member).body(Map.of("jobs", List.of(Map.of("language", "cobol", "code", "x")))).post("/v1/jobs/batch")
                .then().statusCode(200).body(json("[0].error.status", equalTo(400)));
    }

    /**
     * A hundred is the most, and taken; a refusal that only storing finds (the tenant's queue cap,
     * 429) takes its job's place as a validation one does. The tenant runs none and queues two.
     */
    @Test
    void aBatchOfAHundredIsTakenAndATenantsQueueCapRefusesInPlace() {
        String held = key(tenant("judge-held", Map.of("max_running", 0, "max_queued", 2)), "member");
        List<Map<String, Object>> jobs = new ArrayList<>(Collections.nCopies(3, Map.of("language", "bash", "code", "true")));
        jobs.addAll(Collections.nCopies(97, Map.of("language", "cobol", "code", "x")));
        JsonPath answer = as(held).body(Map.of("jobs", jobs)).post("/v1/jobs/batch").then().statusCode(201)
                .body(json("size()", equalTo(100)))
                .body(json("[0].id", notNullValue())).body(json("[1].id", notNullValue()))
                .body(json("[2]", not(hasKey("id")))).body(json("[2].error.status", equalTo(429)))
                .body(json("[99]", not(hasKey("id")))).body(json("[99].error.status", equalTo(400)))
                .body(json("error.status.findAll { it == 400 }.size()", equalTo(97)))
                .extract().jsonPath();
        List<String> ids = List.of(answer.getString("[0].id"), answer.getString("[1].id"));
        as(held).get("/v1/jobs?status=queued").then().statusCode(200).body(json("items.id", containsInAnyOrder(ids.toArray())));
        ids.forEach(id -> as(held).post("/v1/jobs/" + id + "/cancel").then().statusCode(202));
    }

    @Test
    void base64OutputIsByteExact() {
        String code = "printf 'A\\377\\376\\000Z'; printf '\\200\\000' >&2";
        String id = read(as(member).body(Map.of("language", "bash", "code", code, "encoding", "base64"))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("status", equalTo("succeeded")))
                .body(json("encoding", equalTo("base64")))
                .body(json("stdout", equalTo(base64(new byte[] {'A', (byte) 0xff, (byte) 0xfe, 0, 'Z'}))))
                .body(json("stdout_bytes", equalTo(5)))
                .body(json("stderr", equalTo(base64(new byte[] {(byte) 0x80, 0}))))
                .extract().asString(), "id");
        as(member).get("/v1/jobs/" + id).then().statusCode(200)
                .body(json("stdout", equalTo(base64(new byte[] {'A', (byte) 0xff, (byte) 0xfe, 0, 'Z'}))));
        // the event stream's result is the job as GET shows it
        String events = as(member).header("Accept", "text/event-stream").get("/v1/jobs/" + id + "/events")
                .then().statusCode(200).extract().asString();
        assertEquals(true, events.contains("\"stdout\":\"" + base64(new byte[] {'A', (byte) 0xff, (byte) 0xfe, 0, 'Z'})
                + "\""), events);
        // the same output as text: what base64 is for
        as(member).body(Map.of("language", "bash", "code", code)).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("encoding", equalTo("utf-8"))).body(json("stdout", equalTo("A\uFFFD\uFFFD\uFFFDZ")));
    }

    @Test
    void truncatedBase64OutputKeepsItsHeadMarkAndTail() {
        String key = key(tenant("judge-small", Map.of("max_output_bytes", 10)), "member");
        byte[] stdout = Base64.getDecoder().decode(as(key)
                .body(Map.of("language", "bash", "code", "printf '\\377%.0s' $(seq 30)", "encoding", "base64"))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("stdout_truncated", equalTo(true)))
                .body(json("stdout_bytes", equalTo(30))).extract().<String>path("stdout"));
        byte[] mark = "\n[... 20 bytes truncated ...]\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(10 + mark.length, stdout.length);
        for (int i = 0; i < 5; i++) {
            assertEquals((byte) 0xff, stdout[i]);
            assertEquals((byte) 0xff, stdout[stdout.length - 1 - i]);
        }
        assertEquals(new String(mark, java.nio.charset.StandardCharsets.UTF_8),
                new String(stdout, 5, mark.length, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void argsReachTheProgramAsItsArgv() {
        List<String> args = List.of("a b", "$HOME", "--flag", "'q'", "", "é;rm -rf /");
        as(member).body(Map.of("language", "python", "code", "import sys, json\nprint(json.dumps(sys.argv[1:]))",
                "args", args)).post("/v1/jobs?wait=60").then().statusCode(200).body(json("status", equalTo("succeeded")))
                .body(json("args", equalTo(args)))
                .body(json("stdout", equalTo("[\"a b\", \"$HOME\", \"--flag\", \"'q'\", \"\", \"\\u00e9;rm -rf /\"]\n")));
        as(member).body(Map.of("language", "bash", "code", "printf '<%s>' \"$#\" \"$@\"", "args", args))
                .post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("stdout", equalTo("<6><a b><$HOME><--flag><'q'><><é;rm -rf />")));
        as(member).body(Map.of("language", "node", "code", "console.log(JSON.stringify(process.argv.slice(2)))",
                "args", args)).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("stdout", equalTo("[\"a b\",\"$HOME\",\"--flag\",\"'q'\",\"\",\"é;rm -rf /\"]\n")));
    }

    @Test
    void aRerunRepeatsTheRequestOnTheSameNixpkgs() {
        Map<String, Object> body = Map.of("language", "bash", "code", "read x; printf '%s %s %s' \"$1\" \"$GREETING\" \"$x\"",
                "args", List.of("arg"), "env", Map.of("GREETING", "hi"), "stdin", "in\n", "encoding", "base64",
                "metadata", Map.of("ticket", 9), "timeout", 30);
        JsonPath original = as(member).header("Idempotency-Key", "rerun-1").body(body).post("/v1/jobs?wait=60")
                .then().statusCode(200).body(json("status", equalTo("succeeded"))).extract().jsonPath();
        String id = original.getString("id");
        JsonPath rerun = as(member).post("/v1/jobs/" + id + "/rerun").then().statusCode(201)
                .header("Location", containsString("/v1/jobs/")).body(json("rerun_of", equalTo(id)))
                .extract().jsonPath();
        assertNotEquals(id, rerun.getString("id"));
        as(member).get("/v1/jobs/" + rerun.getString("id") + "?wait=60").then().statusCode(200)
                .body(json("status", equalTo("succeeded"))).body(json("rerun_of", equalTo(id)))
                .body(json("stdout", equalTo(original.getString("stdout"))))
                .body(json("stdout", equalTo(base64("arg hi in".getBytes(java.nio.charset.StandardCharsets.UTF_8)))))
                .body(json("args", equalTo(List.of("arg")))).body(json("encoding", equalTo("base64")))
                .body(json("metadata.ticket", equalTo(9)))
                .body(json("environment.nixpkgs_revision", equalTo(original.getString("environment.nixpkgs_revision"))));
        // not the original's idempotency key: the original is still what the key gives back
        as(member).header("Idempotency-Key", "rerun-1").body(body).post("/v1/jobs").then().statusCode(200)
                .body(json("id", equalTo(id))).body(json("rerun_of", nullValue()));
    }

    @Test
    void aRerunOnAnotherPinEndsNixpkgsChanged() {
        String id = read(as(member).body(Map.of("language", "bash", "code", "echo once")).post("/v1/jobs?wait=60")
                .then().statusCode(200).body(json("status", equalTo("succeeded"))).extract().asString(), "id");
        // as if the original had run on a nixpkgs this service no longer pins
        sql("UPDATE jobs SET nixpkgs_revision = 'an-older-revision' WHERE id = ?1", UUID.fromString(id));
        String rerun = read(as(member).post("/v1/jobs/" + id + "/rerun").then().statusCode(201).extract().asString(), "id");
        as(member).get("/v1/jobs/" + rerun + "?wait=60").then().statusCode(200).body(json("status", equalTo("error")))
                .body(json("error.code", equalTo("nixpkgs_changed")))
                .body(json("error.message", containsString("an-older-revision"))).body(json("stdout", equalTo("")));
    }

    @Test
    void aRerunOfAJobWithoutAnEnvironmentRunsOnTheCurrentPin() {
        String id = read(as(member).body(Map.of("language", "python", "code", "1", "packages",
                List.of("python3Packages.nosuch"))).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("status", equalTo("error"))).body(json("environment", nullValue())).extract().asString(), "id");
        String rerun = read(as(member).post("/v1/jobs/" + id + "/rerun").then().statusCode(201).extract().asString(), "id");
        as(member).get("/v1/jobs/" + rerun + "?wait=60").then().statusCode(200)
                .body(json("error.code", equalTo("unknown_package")));
    }

    @Test
    void listRowsCarryPreviewsUnlessFieldsFullIsAsked() {
        String id = read(as(member).body(Map.of("language", "bash", "code", "printf 'x%.0s' $(seq 1000); echo oops >&2"))
                .post("/v1/jobs?wait=60").then().statusCode(200).extract().asString(), "id");
        as(member).get("/v1/jobs").then().statusCode(200)
                .body(json("items[0].id", equalTo(id)))
                .body(json("items[0]", not(hasKey("stdout")))).body(json("items[0]", not(hasKey("stderr"))))
                .body(json("items[0].stdout_preview", equalTo("x".repeat(200))))
                .body(json("items[0].stderr_preview", equalTo("oops\n")))
                .body(json("items[0].stdout_bytes", equalTo(1000)))
                .body(json("items[0].status", equalTo("succeeded")));
        as(member).get("/v1/jobs?fields=summary").then().statusCode(200).body(json("items[0]", not(hasKey("stdout"))));
        as(member).get("/v1/jobs?fields=full").then().statusCode(200)
                .body(json("items[0].stdout", equalTo("x".repeat(1000))))
                .body(json("items[0]", not(hasKey("stdout_preview"))));
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private void sql(String statement, Object... parameters) {
        QuarkusTransaction.requiringNew().run(() -> {
            var query = em.createNativeQuery(statement);
            for (int i = 0; i < parameters.length; i++) {
                query.setParameter(i + 1, parameters[i]);
            }
            query.executeUpdate();
        });
    }
}

package dev.nixexec.security;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.MultiMap;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Input the REST API must refuse rather than guess at: lenient base64, mistyped scalars, query
 * parameters that do not convert, a body without a Content-Type or over the size limit. Every
 * refusal is a problem document that names what is wrong.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class StrictInputTest {

    @TestHTTPResource("/")
    URL base;

    @Inject
    ObjectMapper json;

    String member;

    @BeforeEach
    void tenant() {
        member = memberKey("strict");
    }

    @Test
    void base64ThatIsNotBase64IsRefusedNamingTheField() {
        for (String content : List.of("QUJD!!", "!!!", "QU JD*", "QUJD=QUJD")) {
            as(member).body(Map.of("language", "bash", "code", "true",
                            "files", List.of(Map.of("path", "a.bin", "content", content, "encoding", "base64"))))
                    .post("/v1/jobs").then().statusCode(400).contentType("application/problem+json")
                    .body(json("errors[0].field", equalTo("files[0].content")));
        }
        // what a wrapping encoder sends (line breaks) is still base64
        String id = read(as(member).body(Map.of("language", "bash", "code", "cat /workspace/a.bin",
                        "files", List.of(Map.of("path", "a.bin", "content", "QUJD\nREVG\n", "encoding", "base64"))))
                .post("/v1/jobs?wait=60").then().statusCode(200).body(json("stdout", equalTo("ABCDEF"))).extract().asString(), "id");
        assertTrue(id != null);
    }

    /** MCP's write_workspace_file decodes with the same strict decoder. */
    @Test
    void mcpBase64IsAsStrict() {
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(message ->
                MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + member)).build().connect()) {
            client.when()
                    .toolsCall("write_workspace_file", Map.of("path", "a.bin", "content", "QUJD!!", "encoding", "base64"),
                            r -> {
                                assertTrue(r.isError());
                                assertTrue(r.content().get(0).asText().text().startsWith("content: not valid base64"),
                                        r.content().get(0).asText().text());
                            })
                    .toolsCall("write_workspace_file", Map.of("path", "a.bin", "content", "QUJD", "encoding", "base64"),
                            r -> assertFalse(r.isError(), r.content().get(0).asText().text()))
                    .thenAssertResults();
        }
    }

    @Test
    void aNumberOrBooleanWhereTextBelongsIsRefused() throws Exception {
        List<String> bodies = List.of(
                "{\"language\":\"bash\",\"code\":5}",
                "{\"language\":\"bash\",\"code\":5.5}",
                "{\"language\":\"bash\",\"code\":true}",
                "{\"language\":7,\"code\":\"true\"}",
                "{\"language\":\"bash\",\"code\":\"true\",\"stdin\":5}",
                "{\"language\":\"bash\",\"code\":\"true\",\"env\":{\"A\":5}}",
                "{\"language\":\"bash\",\"code\":\"true\",\"env\":{\"A\":false}}",
                "{\"language\":\"bash\",\"code\":\"true\",\"packages\":[5]}",
                "{\"language\":\"bash\",\"code\":\"true\",\"network\":0}");
        for (String body : bodies) {
            as(member).body(body).post("/v1/jobs").then().statusCode(400).contentType("application/problem+json")
                    .body(json("detail", containsString("wrong type")));
        }
        as(member).body("{\"language\":\"bash\",\"code\":5}").post("/v1/jobs").then()
                .body(json("detail", equalTo("field 'code' has the wrong type or shape: must be a string, not a number")))
                .body(json("errors[0].field", equalTo("code")));
    }

    /** Problems of every kind come in one answer, each naming its field; detail says them too. */
    @Test
    void everyProblemOfABodyIsListedAtOnce() {
        String jobsBefore = as(member).get("/v1/jobs").then().statusCode(200).extract().asString();
        as(member).body("{\"language\":\"cobol\",\"code\":\"x\",\"timeout\":\"7x\"}").post("/v1/jobs").then()
                .statusCode(400).contentType("application/problem+json")
                .body(json("errors.field", equalTo(List.of("timeout", "language"))))
                .body(json("errors[1].message", containsString("unknown language 'cobol'")))
                .body(json("detail", containsString("timeout: a duration like")));
        // wrong types, an unknown field and bad values together
        as(member).body("{\"language\":\"cobol\",\"code\":5,\"colour\":\"red\",\"env\":{\"A\":true,\"B\":\"b\"},"
                        + "\"timeout\":\"7x\",\"network\":\"some\"}")
                .post("/v1/jobs").then().statusCode(400)
                .body(json("errors.field", equalTo(List.of("code", "colour", "env.A", "network", "timeout", "language"))))
                .body(json("errors[0].message", equalTo("must be a string, not a number")))
                .body(json("errors[1].message", equalTo("unknown field")));
        // other bodies list their shape problems together too
        as(member).body("{\"packages\":\"hello\",\"name\":7,\"ttl\":1}").post("/v1/sessions").then().statusCode(400)
                .body(json("errors.field", equalTo(List.of("packages", "name", "ttl"))))
                .body(json("errors[0].message", equalTo("must be an array, not a string")));
        // a batch names each problem inside its jobs
        as(member).body("{\"jobs\":[{\"language\":\"bash\",\"code\":1},{\"language\":\"bash\",\"code\":\"true\",\"x\":1}]}")
                .post("/v1/jobs/batch").then().statusCode(400)
                .body(json("errors.field", equalTo(List.of("jobs[0].code", "jobs[1].x"))));
        assertEquals(jobsBefore, as(member).get("/v1/jobs").then().statusCode(200).extract().asString(), "nothing was stored");
    }

    @Test
    void invalidJsonSaysWhereAndTrailingDataIsRefused() {
        as(member).body("{\"language\": \"bash\",\n  \"code\": }").post("/v1/jobs").then().statusCode(400)
                .contentType("application/problem+json")
                .body(json("errors[0].field", equalTo("body")))
                .body(json("errors[0].message", equalTo("not valid JSON (line 2, column 11)")))
                .body(json("detail", equalTo("the request body is not valid JSON (line 2, column 11)")));
        as(member).body("{\"language\": \"bash\", \"code\": \"tr").post("/v1/jobs").then().statusCode(400)
                .body(json("errors[0].message", containsString("ends before its value is complete")));
        String jobsBefore = as(member).get("/v1/jobs").then().statusCode(200).extract().asString();
        String job = "{\"language\":\"bash\",\"code\":\"echo ran\"}"; // 37 characters
        Map<String, String> trailing = Map.of(job + " trailing", "line 1, column 39", job + "{\"language\":\"bash\"}",
                "line 1, column 38", job + "\n 5", "line 2, column 2");
        trailing.forEach((body, where) -> as(member).body(body).post("/v1/jobs").then().statusCode(400)
                .contentType("application/problem+json")
                .body(json("errors[0].field", equalTo("body")))
                .body(json("errors[0].message", equalTo("more follows the JSON value (" + where + "); a body is one JSON value")))
                .body(json("detail", equalTo("the request body has data after its JSON value"))));
        assertEquals(jobsBefore, as(member).get("/v1/jobs").then().statusCode(200).extract().asString(), "nothing ran");
        // white space after the value is no data
        as(member).body("{\"language\":\"bash\",\"code\":\"true\"}\n\n").post("/v1/jobs?wait=60").then().statusCode(200);
    }

    @Test
    void aQueryParameterThatDoesNotConvertIsA400NamingIt() {
        as(member).get("/v1/jobs?limit=abc").then().statusCode(400).contentType("application/problem+json")
                .body(json("detail", containsString("'limit'"))).body(json("errors[0].field", equalTo("limit")));
        as(member).get("/v1/jobs?limit=99999999999999").then().statusCode(400).body(json("errors[0].field", equalTo("limit")));
        as(member).get("/v1/jobs?since=yesterday").then().statusCode(400).body(json("errors[0].field", equalTo("since")));
        as(member).get("/v1/jobs/" + UUID.randomUUID() + "?wait=abc").then().statusCode(400)
                .body(json("errors[0].field", equalTo("wait")));
        // the same mapper answers for other resources' parameters
        as(ADMIN).get("/v1/audit?limit=abc").then().statusCode(400).body(json("errors[0].field", equalTo("limit")));
        // and a path that does not exist is still a 404
        as(member).get("/v1/nothing-here").then().statusCode(404);
        as(member).get("/v1/jobs?limit=10").then().statusCode(200);
    }

    @Test
    void aBodyWithoutContentTypeIsToldWhatIsMissing() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "v1/jobs"))
                .header("Authorization", "Bearer " + member)
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"bash\",\"code\":\"true\"}")));
        assertEquals(415, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
        assertTrue(json.readTree(r.body()).path("detail").asText().contains("Content-Type: application/json is required"),
                r.body());
    }

    @Test
    void aBodyOverTheLimitGetsAProblemDocument() throws Exception {
        String big = "{\"language\":\"bash\",\"code\":\"" + "#".repeat(11 << 20) + "\"}";
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "v1/jobs"))
                .header("Authorization", "Bearer " + member).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(big)));
        assertEquals(413, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
        JsonNode problem = json.readTree(r.body());
        assertEquals(413, problem.path("status").asInt(), r.body());
        assertTrue(problem.path("detail").asText().contains("at most"), r.body());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}

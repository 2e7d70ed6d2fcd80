package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * A web page on another origin must not drive the service through a visitor's browser: its
 * requests are refused before they reach a tool or an endpoint, with or without a preflight.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class CrossOriginTest {

    private static final String INIT = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
            "capabilities":{},"clientInfo":{"name":"page","version":"1"}}}""";

    @Test
    void simpleCrossOriginPostToMcpIsRefused() {
        given().header("Origin", "http://evil.example").header("Authorization", "Bearer " + ADMIN)
                .contentType("text/plain").body(INIT).post("/mcp")
                .then().statusCode(403).header("Access-Control-Allow-Origin", nullValue());
    }

    @Test
    void crossOriginJobSubmissionIsRefused() {
        given().header("Origin", "http://evil.example").header("Authorization", "Bearer " + ADMIN)
                .contentType("application/json").body("{\"language\":\"bash\",\"code\":\"true\"}").post("/v1/jobs")
                .then().statusCode(403);
    }

    @Test
    void preflightFromAnotherOriginIsNotApproved() {
        given().header("Origin", "http://evil.example").header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "authorization,content-type").options("/mcp")
                .then().header("Access-Control-Allow-Origin", nullValue());
    }

    @Test
    void clientsWithoutAnOriginAreServed() {
        given().header("Authorization", "Bearer " + ADMIN).get("/v1/languages")
                .then().statusCode(200).body(json("[0].language", equalTo("python")));
    }
}

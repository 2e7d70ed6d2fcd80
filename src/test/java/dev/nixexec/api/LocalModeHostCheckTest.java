package dev.nixexec.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import dev.nixexec.testing.LocalMode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding against a local-mode server: a page on evil.example re-pointed at 127.0.0.1
 * sends its own name as Host (and as Origin, so CORS sees "same origin"). Refused before any
 * endpoint; requests to localhost are served.
 */
@QuarkusTest
@TestProfile(LocalMode.class)
@WithTestResource(NixSpy.class)
public class LocalModeHostCheckTest {

    @Test
    void aRebindingPageIsRefusedEverywhere() {
        for (String path : new String[] {"/v1/languages", "/mcp", "/ui/jobs"}) {
            given().header("Host", "evil.example:8080").header("Origin", "http://evil.example:8080")
                    .contentType("application/json").body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
                    .post(path).then().statusCode(421).body(containsString("only requests to localhost"));
        }
        given().header("Host", "evil.example:8080").get("/v1/languages").then().statusCode(421);
    }

    @Test
    void localhostIsServed() {
        given().header("Host", "localhost").get("/v1/languages").then().statusCode(200);
        given().header("Host", "127.0.0.1:8080").get("/v1/languages").then().statusCode(200);
        given().header("Host", "[::1]:8080").get("/v1/languages").then().statusCode(200);
        // the single local user runs the platform: an operator, so the node list is its to read
        given().header("Host", "localhost").get("/v1/nodes").then().statusCode(200);
        given().header("Host", "evil.example").get("/q/health/live").then().statusCode(200);
    }
}

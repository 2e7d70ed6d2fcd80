package dev.nixexec.worker;

import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without nix and bubblewrap the service still starts, says why (in its log), and is not ready. */
@QuarkusIntegrationTest
@TestProfile(HostReadinessIT.MissingTools.class)
class HostReadinessIT {

    public static class MissingTools implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.executor.nix-command", "/nonexistent/nix",
                    "nixexec.executor.bwrap-command", "/nonexistent/bwrap");
        }
    }

    @Test
    void readinessIsDownAndSaysWhy() {
        given().get("/q/health/ready").then().statusCode(503)
                .body(json("status", equalTo("DOWN")))
                .body(json("checks.find { it.name == 'execution-host' }.data.nix", equalTo("missing")))
                .body(json("checks.find { it.name == 'execution-host' }.data.sandbox", equalTo("unavailable")));
    }

    @Test
    void livenessIsUnaffected() {
        given().get("/q/health/live").then().statusCode(200);
    }
}

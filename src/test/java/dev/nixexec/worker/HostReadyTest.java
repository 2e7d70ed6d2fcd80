package dev.nixexec.worker;

import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(NixSpy.class)
class HostReadyTest {

    @Test
    void readyWithNixAndBubblewrap() {
        given().get("/q/health/ready").then().statusCode(200)
                .body(json("status", equalTo("UP")))
                .body(json("checks.find { it.name == 'execution-host' }.data.sandbox", equalTo("ok")))
                .body(json("checks.find { it.name == 'execution-host' }.data.nix", equalTo("ok")))
                .body(json("checks.find { it.name == 'execution-host' }.data.limits", equalTo("cgroups")));
    }

    /** Was a finding: anyone could read the nix path and the cgroup directories here; they go to the log now. */
    @Test
    void readinessShowsNoHostPaths() {
        String body = given().get("/q/health/ready").then().statusCode(200).extract().asString();
        org.junit.jupiter.api.Assertions.assertFalse(body.contains("/"), body);
    }
}

package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static org.hamcrest.Matchers.containsString;

import dev.nixexec.config.ConfigFileStartupIT;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A full queue answers 503 with a problem, and stores nothing. On the API node of
 * {@code config/startup.yaml} (its queue holds two jobs), sharing ConfigFileStartupIT's start.
 */
@QuarkusTest
@TestProfile(ConfigFileStartupIT.WithConfigFile.class)
class QueueFullIT {

    @Test
    void aFullQueueIsServiceUnavailable() {
        String member = memberKey("full");
        Map<String, Object> body = Map.of("language", "bash", "code", "true");
        // earlier tests of this profile may have left jobs queued: fill up to the cap first
        for (int i = 0; i < 2; i++) {
            as(member).body(body).post("/v1/jobs");
        }
        as(member).body(body).post("/v1/jobs").then().statusCode(503).contentType("application/problem+json")
                .body(json("detail", containsString("queue is full")));
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items.size()", org.hamcrest.Matchers.lessThanOrEqualTo(2)));
    }
}

package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static org.hamcrest.Matchers.containsString;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A full queue answers 503 with a problem, and stores nothing. */
@QuarkusIntegrationTest
@WithTestResource(NixSpy.class)
@TestProfile(QueueFullIT.TinyQueue.class)
class QueueFullIT {

    public static class TinyQueue implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.node.role", "api", "nixexec.jobs.max-queued", "2");
        }
    }

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

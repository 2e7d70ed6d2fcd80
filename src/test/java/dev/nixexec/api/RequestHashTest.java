package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An Idempotency-Key is held to a hash of its request, kept with the job: a retry after an upgrade
 * must hash to what the key was stored with, or it is refused as a different request. These are
 * the hashes of the service before the request became one stored document (dcf6a6d).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class RequestHashTest {

    @Inject
    AgroalDataSource db;

    @Test
    void aRequestHashesAsItDidBeforeItsFieldsWereStoredAsOneDocument() throws Exception {
        String member = key(tenant("hashes", Map.of("max_running", 0)), "member");
        List<Map<String, Object>> bodies = List.of(
                Map.of("language", "bash", "code", "echo plain"),
                Map.of("language", "python", "code", "print(1)", "packages", List.of("jq"),
                        "env", Map.of("B", "2", "A", "1"), "stdin", "in", "timeout", "5s", "network", "off",
                        "metadata", Map.of("run", "7")),
                Map.of("language", "bash", "code", "echo \"$@\"", "args", List.of("a", "b"), "encoding", "base64",
                        "limits", Map.of("memory", "64MiB", "pids", 32)));
        List<String> hashes = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            String id = as(member).header("Idempotency-Key", "hash-" + i).body(bodies.get(i)).post("/v1/jobs")
                    .then().statusCode(201).extract().path("id");
            hashes.add(storedHash(UUID.fromString(id)));
        }
        assertEquals(List.of(
                "8eda9e555251eccf991eabf4faef0377f0d8c021b7ed2fcf09d15b815992b06e",
                "e9000987a03a5601ec934c553420f0cfac149639884106705ed945400e2c93de",
                "7f12e572ee951cbc8c921bf9ed46bfb1ddcb5a4c313ce0a2ff07d99685779fbe"), hashes);
    }

    private String storedHash(UUID job) throws Exception {
        try (Connection c = db.getConnection();
                PreparedStatement q = c.prepareStatement("SELECT request_hash FROM jobs WHERE id = ?")) {
            q.setObject(1, job);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}

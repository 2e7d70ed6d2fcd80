package dev.nixexec.worker;

import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A nix that is installed but cannot reach its store (a stopped daemon, a broken store) makes the
 * node unready, saying why in its log; the nix here is a real executable that fails as such a nix does.
 */
@QuarkusIntegrationTest
@TestProfile(NixStoreDownIT.BrokenNix.class)
class NixStoreDownIT {

    public static class BrokenNix implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                Path dir = Files.createDirectories(Path.of("target/broken-nix").toAbsolutePath());
                Path nix = dir.resolve("nix");
                Files.writeString(nix, "#!/bin/sh\necho 'error: cannot connect to socket at /nix/var/nix/daemon-socket/socket' >&2\nexit 1\n");
                Files.setPosixFilePermissions(nix, PosixFilePermissions.fromString("rwxr-xr-x"));
                return Map.of("nixexec.executor.nix-command", nix.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void readinessIsDownWithTheStoreError() {
        given().get("/q/health/ready").then().statusCode(503)
                .body(json("checks.find { it.name == 'execution-host' }.data.'nix-store'",
                        equalTo("down")));
    }
}

package dev.nixexec.nix;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A pinned nixpkgs that needs a newer Nix than the host's (as current nixpkgs needs 2.18 and Debian
 * 12 has 2.8): a copy of the offline fixture that declares, as real nixpkgs does in
 * {@code lib/minver.nix}, a minimum of 99.0. The service says so at start, in readiness, and as
 * the error of every job, instead of every job failing in nixpkgs's own evaluation.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(NixTooOldIT.NixpkgsNeedsNewerNix.class)
class NixTooOldIT {

    static final Path FIXTURE = Path.of("target", "nixpkgs-needs-nix-99").toAbsolutePath();

    public static class NixpkgsNeedsNewerNix implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Path source = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "nix", "testing", "nixpkgs");
            try {
                if (Files.exists(FIXTURE)) {
                    try (Stream<Path> old = Files.walk(FIXTURE)) {
                        old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
                try (Stream<Path> files = Files.walk(source)) {
                    for (Path file : files.toList()) {
                        Path target = FIXTURE.resolve(source.relativize(file).toString());
                        if (Files.isDirectory(file)) {
                            Files.createDirectories(target);
                        } else {
                            Files.copy(file, target);
                        }
                    }
                }
                Files.createDirectories(FIXTURE.resolve("lib"));
                // as nixpkgs says it (lib/minver.nix), with a version no Nix has
                Files.writeString(FIXTURE.resolve("lib/minver.nix"),
                        "# Expose the minimum required version for evaluating Nixpkgs\n\"99.0\"\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.of("nixexec.executor.nixpkgs-url", "path:" + FIXTURE);
        }
    }

    @Inject
    NixpkgsPins pins;

    @Test
    void readinessIsDownAndSaysWhichNixIsNeeded() {
        // the worker pins nixpkgs at start, in the background
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/q/health/ready").then().extract().asString()
                .contains("needs Nix"));
        given().get("/q/health/ready").then().statusCode(503)
                .body(json("status", equalTo("DOWN")))
                .body(json("checks.find { it.name == 'execution-host' }.data.nixpkgs",
                        startsWith("needs Nix 99.0 or newer; this nix is ")));
    }

    @Test
    void aJobIsRefusedNamingIt() {
        String member = memberKey("old-nix");
        as(member).body(Map.of("language", "bash", "code", "echo never")).post("/v1/jobs?wait=60").then().statusCode(200)
                .body(json("status", equalTo("error")))
                .body(json("error.code", equalTo("nix_too_old")))
                .body(json("error.message", startsWith("nixpkgs path:" + FIXTURE + " needs Nix 99.0 or newer, and this host's nix is ")));
    }

    @Test
    void pinningItSaysSoInOneErrorLine() {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(NixpkgsPins.class.getName());
        logger.addHandler(handler);
        try {
            pins.refresh();
        } finally {
            logger.removeHandler(handler);
        }
        List<String> errors = records.stream().filter(r -> r.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(r -> r.getMessage()).toList();
        assertEquals(1, errors.size(), records.stream().map(LogRecord::getMessage).toList().toString());
        assertTrue(errors.get(0).contains("needs Nix 99.0 or newer, and this host's nix is ")
                && errors.get(0).contains("README, Prerequisites") && !errors.get(0).contains("\n"), errors.get(0));
    }
}

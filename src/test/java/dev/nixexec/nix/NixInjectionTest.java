package dev.nixexec.nix;

import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Hostile values in every field that reaches a Nix build. Package names and the language are
 * refused before nix runs; env never reaches Nix at all; names that are valid attribute paths reach
 * Nix only as JSON data in a request file outside the flake (never in the store), next to a fixed
 * flake.nix and env.nix, with a fixed argv.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class NixInjectionTest {

    static final String ADMIN = "nx_test_bootstrap_admin_secret";

    /** Attempts to become Nix source, a nix option, a flake reference or a path. */
    static final List<String> HOSTILE_PACKAGES = List.of(
            "jq; builtins.exec [\"sh\"]", "jq\" + builtins.readFile /etc/shadow + \"", "${builtins.readFile /etc/shadow}",
            "(import /etc/passwd)", "jq # comment", "jq\nhello", "jq\u0000hello", "--impure", "--expr", "-I nixpkgs=/tmp",
            "--option sandbox false", "nixpkgs#hello", "github:evil/flake#pkg", "path:/tmp/evil", "/nix/store/abc-evil",
            "./evil", "../../etc/passwd", "jq.", ".jq", "jq..hello", "a.b.c.d.e.f.g", "x".repeat(201), "ｊｑ", "jq\u202E",
            "1jq", "jq@1.6", "jq=1.6", "jq:1", "with pkgs; hello", "let x = 1; in x", "rec { }", "{ }", "[ ]", "''",
            "jq'", "`id`", "$(id)", "jq\\hello", "jq or hello", "");

    static final List<String> HOSTILE_LANGUAGES = List.of("python; rm -rf /", "python\u0000", "python ", " python",
            "pyth\u043Em", "../python", "${python}", "python3", "bash\n", "nixpkgs#python3", "");

    @Inject
    ExecutionEngine engine;

    @Inject
    AgroalDataSource db;

    @Inject
    ObjectMapper json;

    @Test
    void hostilePackageNamesAndLanguagesAreRefusedBeforeNixRuns() throws Exception {
        String member = member();
        long jobs = count();
        int nixCalls = NixSpy.invocations().size();
        for (String name : HOSTILE_PACKAGES) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("language", "python");
            body.put("code", "print(1)");
            body.put("packages", List.of(name));
            RestAssured.given().header("Authorization", "Bearer " + member).contentType("application/json")
                    .body(json.writeValueAsString(body)).post("/v1/jobs")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("packages[0]")));
        }
        for (String language : HOSTILE_LANGUAGES) {
            Map<String, Object> body = Map.of("language", language, "code", "print(1)");
            RestAssured.given().header("Authorization", "Bearer " + member).contentType("application/json")
                    .body(json.writeValueAsString(body)).post("/v1/jobs")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("language")));
        }
        assertEquals(jobs, count(), "a refused submission was stored");
        assertEquals(List.of(), NixSpy.invocations().subList(nixCalls, NixSpy.invocations().size()),
                "nix ran for a refused submission");
    }

    @Test
    void envIsNotPartOfTheBuild() {
        ExecutionResult plain = Runs.run(engine, ExecutionRequest.of("python", "print(1)"));
        assertEquals("succeeded", plain.status());
        int nixCalls = NixSpy.invocations().size();
        Map<String, String> env = Map.of(
                "NIX_PATH", "nixpkgs=/tmp/evil",
                "NIX_CONFIG", "sandbox = false\nallow-import-from-derivation = true",
                "NIXPKGS_ALLOW_UNFREE", "1",
                "NIX_REMOTE", "ssh://evil",
                "X", "${builtins.readFile /etc/shadow}\"; builtins.exec [\"sh\"]; \"");
        ExecutionResult hostile = Runs.run(engine, ExecutionRequest.of("python",
                "import os\nprint(os.environ['X'])\nprint(os.environ['NIX_PATH'])").withEnv(env));
        assertEquals("succeeded", hostile.status(), hostile.error().toString());
        assertEquals(env.get("X") + "\n" + env.get("NIX_PATH") + "\n", hostile.stdout().text());
        assertEquals(plain.environment().orElseThrow().storePath(), hostile.environment().orElseThrow().storePath());
        assertEquals(List.of(), NixSpy.invocations().subList(nixCalls, NixSpy.invocations().size()),
                "the env of a run started nix");
    }

    @Test
    void validButOddAttributePathsReachNixOnlyAsData() throws Exception {
        // Each is a legal attribute path; none is a package. They must come back as unknown_package,
        // with nix started by the same fixed argv as any other build.
        List<String> odd = List.of("builtins", "__functor", "hello.override", "import", "runCommand");
        int nixCalls = NixSpy.invocations().size();
        for (String name : odd) {
            ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", "echo hi").withPackages(name));
            assertEquals("error", result.status(), name + ": " + result.stdout().text());
            assertEquals("unknown_package", result.error().orElseThrow().code(), name);
            assertEquals("unknown package '" + name + "'", result.error().orElseThrow().message(), name);
            Map<String, Object> data = EnvironmentRequest.of(Language.BASH, List.of(PackageName.parse(name)))
                    .toNixRequest("x86_64-linux");
            String text = json.writeValueAsString(data);
            assertTrue(text.contains("\"name\":\"" + name + "\""), text);
        }
        List<String> builds = NixSpy.invocations().subList(nixCalls, NixSpy.invocations().size()).stream()
                .filter(l -> l.startsWith("nix build ")).toList();
        assertEquals(odd.size(), builds.size(), "one nix build per request: " + builds);
        // the configured options (identical for every build), then the fixed tail: only the gc root, the pin and
        // the build directory vary, and none of them comes from the request
        assertEquals(1, builds.stream().map(l -> l.substring(0, l.indexOf(" --json "))).distinct().count(), builds.toString());
        for (String line : builds) {
            assertTrue(line.matches("nix build .* --json --no-write-lock-file --impure --out-link \\S+/gcroots/[0-9a-f]+ "
                    + "--override-input nixpkgs \\S+ path:\\S+/build-\\d+#default"), line);
            for (String name : odd) {
                assertFalse(List.of(line.split(" ")).contains(name), "a package name in the nix argv: " + line);
            }
        }
    }

    /**
     * With the whole store in view, every job could read every file Nix copied into the store. A
     * request (its packages), its code, env values and stdin must never be among them: a job of
     * another tenant looks for them, and so does the test, in every flake source in the store.
     */
    @Test
    void noPartOfARequestLandsInTheStoreForOtherJobsToRead() throws Exception {
        String marker = "nixexecmarker" + UUID.randomUUID().toString().replace("-", "");
        String owner = member();
        int nixCalls = NixSpy.invocations().size();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("language", "bash");
        body.put("code", "echo code-" + marker);
        body.put("packages", List.of(marker + "pkg"));
        body.put("env", Map.of("SECRET", "env-" + marker));
        body.put("stdin", "stdin-" + marker);
        String first = submit(owner, body);
        RestAssured.given().header("Authorization", "Bearer " + owner).get("/v1/jobs/" + first + "?wait=60")
                .then().statusCode(200).body(json("status", equalTo("error"))).body(json("error.code", equalTo("unknown_package")));
        assertTrue(NixSpy.invocations().subList(nixCalls, NixSpy.invocations().size()).stream()
                .anyMatch(l -> l.startsWith("nix build ")), "the request never reached nix");

        List<String> found = new java.util.ArrayList<>();
        try (var store = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/nix/store"), "*-source")) {
            for (java.nio.file.Path source : store) {
                try (var files = java.nio.file.Files.walk(source)) {
                    for (java.nio.file.Path f : files.filter(java.nio.file.Files::isRegularFile).toList()) {
                        if (java.nio.file.Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1).contains(marker)) {
                            found.add(f.toString());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "store files holding the request");

        String other = member();
        // grep is gnugrep's (coreutils has none, as in nixpkgs)
        String second = submit(other, Map.of("language", "bash", "packages", List.of("gnugrep"), "code",
                "cat /nix/store/*-source/request.json 2>/dev/null; grep -rl " + marker + " /nix/store/*-source 2>/dev/null; echo looked"));
        String stdout = read(RestAssured.given().header("Authorization", "Bearer " + other).get("/v1/jobs/" + second + "?wait=60")
                .then().statusCode(200).body(json("status", equalTo("succeeded"))).extract().asString(), "stdout");
        assertTrue(stdout.endsWith("looked\n"), stdout);
        assertFalse(stdout.contains(marker), "another tenant's job read the request: " + stdout);
    }

    private String submit(String key, Map<String, Object> body) throws Exception {
        return read(RestAssured.given().header("Authorization", "Bearer " + key).contentType("application/json")
                .body(json.writeValueAsString(body)).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    private long count() throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM jobs")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String member() {
        String tenant = read(RestAssured.given().header("Authorization", "Bearer " + ADMIN).contentType("application/json")
                .body(Map.of("name", "nixinj-" + UUID.randomUUID().toString().substring(0, 8))).post("/v1/admin/tenants")
                .then().statusCode(201).extract().asString(), "id");
        return read(RestAssured.given().header("Authorization", "Bearer " + ADMIN).contentType("application/json")
                .body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenant + "/keys")
                .then().statusCode(201).extract().asString(), "key");
    }
}

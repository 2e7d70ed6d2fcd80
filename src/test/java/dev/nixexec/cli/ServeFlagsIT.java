package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.CommandLine.Outcome;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code nix-exec serve} with nix-exec's flags, started as a user starts it: the flags win over
 * the YAML file and the environment (which still count where no flag is given), and a bad flag
 * stops it before anything starts.
 */
class ServeFlagsIT {

    private static final String KEY = "nx_serve_flags_test_key";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path STATE = CommandLine.REPO.resolve("target/test-state/"
            + System.getProperty("nixexec-test.tier", "default") + "/serve-flags");

    @Test
    void flagsWinOverTheYamlFileAndTheEnvironment() throws Exception {
        deleteTree(STATE);
        Files.createDirectories(STATE);
        // timeout and name: a flag, a variable and the file; max output: a variable and the file; jq denied: the file alone
        Path yaml = Files.writeString(STATE.resolve("config.yaml"), """
                server:
                  name: yaml-name
                sandbox:
                  timeout: 50s
                  max_output_bytes: 100
                  package_denylist: [jq]
                """);
        int port = freePort();
        List<String> argv = new ArrayList<>(List.of(CommandLine.COMMAND.toString(), "serve", "-config", yaml.toString(),
                "-name", "flag-name", "-timeout", "2", "-state-dir", STATE.resolve("state").toString(),
                "-host", "127.0.0.1", "-port", Integer.toString(port), "-concurrency", "1",
                "-nixpkgs-url", "path:" + CommandLine.REPO.resolve("nix/testing/nixpkgs"), "-substituters", "none",
                "-Dnixexec.executor.nix-options=sandbox=false", "-Dnixexec.package-index.at-start=false"));
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(STATE.resolve("serve.log").toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("NIXEXEC_AUTH_BOOTSTRAP_ADMIN_KEY", KEY);
        builder.environment().put("NIXEXEC_SANDBOX_TIMEOUT", "40s");
        builder.environment().put("NIXEXEC_SANDBOX_MAX_OUTPUT_BYTES", "200");
        builder.environment().put("QUARKUS_MCP_SERVER_SERVER_INFO_NAME", "env-name");
        Process service = builder.start();
        String base = "http://127.0.0.1:" + port;
        try {
            awaitReady(base, service);
            // 2 s from the flag, not 40 s from the environment or 50 s from the file
            Outcome sleeper = CommandLine.against(base, KEY).run("run", "-l", "bash", "sleep 30");
            assertEquals(Exit.TIMED_OUT.code, sleeper.exit(), sleeper + log());
            assertEquals("flag-name", mcpServerName(base), log());
            // the controls: with no flag, the variable beats the file (200 bytes kept, not 100 nor the default)...
            HttpResponse<String> printed = submit(base, """
                    {"language": "bash", "code": "for i in {1..100}; do printf 0123456789; done"}""");
            JsonNode job = JSON.readTree(printed.body());
            assertEquals("succeeded", job.path("status").asText(), printed.body() + log());
            assertEquals(1000, job.path("stdout_bytes").asInt(), printed.body());
            assertTrue(job.path("stdout_truncated").asBoolean(), printed.body());
            assertEquals(200, job.path("stdout").asText().replaceFirst("\n\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\]\n", "")
                    .length(), printed.body());
            // ...and a key only the file sets takes effect: the file named by -config was read
            HttpResponse<String> denied = submit(base, """
                    {"language": "bash", "code": "true", "packages": ["jq"]}""");
            assertEquals(400, denied.statusCode(), denied.body() + log());
            assertTrue(denied.body().contains("jq"), denied.body());
        } finally {
            service.destroy();
            if (!service.waitFor(60, TimeUnit.SECONDS)) {
                service.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void aBadFlagStopsItBeforeItStarts() throws Exception {
        CommandLine cli = CommandLine.against("http://127.0.0.1:1", null);
        Outcome duration = cli.run("serve", "-timeout", "7x");
        assertEquals(Exit.USAGE.code, duration.exit(), duration.toString());
        assertEquals("nix-exec: serve -timeout: '7x' is not a duration (e.g. 30s, 10m, 6h, or seconds)", duration.stderr().strip());
        Outcome unknown = cli.run("serve", "-frobnicate", "1");
        assertEquals(Exit.USAGE.code, unknown.exit(), unknown.toString());
        assertEquals(1, unknown.stderr().lines().count(), unknown.toString());
        Outcome role = cli.run("serve", "-role", "banana");
        assertEquals("nix-exec: serve -role: 'banana' is not one of all, api, worker", role.stderr().strip());
        Outcome help = cli.run("serve", "--help");
        assertEquals(0, help.exit(), help.toString());
        for (ServeFlag flag : ServeFlag.ALL) {
            assertTrue(help.stdout().contains(flag.flag() + "=" + flag.label()), flag + "\n" + help.stdout());
        }
    }

    /**
     * A config file that cannot be used stops serve and the stdio server alike with one line naming
     * the file, the key and why, and exit 78, before the framework logs anything; whether the file is
     * named by -config, NIX_EXEC_CONFIG or found in the search order.
     */
    @Test
    void aBadConfigFileIsOneLineAndExit78() throws Exception {
        Path dir = Files.createDirectories(STATE.resolve("bad-config/nix-exec"));
        Path bad = Files.writeString(dir.resolve("config.yaml"), "sandbox:\n  timeout: soon\n");
        String line = "nix-exec: config " + bad + ": sandbox.timeout: 'soon' is not a duration (e.g. 30s, 10m, 6h, or seconds)";
        CommandLine cli = CommandLine.against("http://127.0.0.1:1", null);
        List<Outcome> outcomes = List.of(cli.run("serve", "-config", bad.toString()),
                cli.with(java.util.Map.of("NIX_EXEC_CONFIG", bad.toString())).run("serve"),
                cli.with(java.util.Map.of("XDG_CONFIG_HOME", dir.getParent().toString())).run("serve", "-timeout", "5s"),
                // the stdio server: nix-exec with no command, as an MCP client starts it
                cli.with(java.util.Map.of("NIX_EXEC_CONFIG", bad.toString())).runWithInput("", "-log-level", "debug"));
        for (Outcome outcome : outcomes) {
            assertEquals(Exit.CONFIG.code, outcome.exit(), outcome.toString());
            assertEquals(line, outcome.stderr().strip(), outcome.toString());
            assertEquals("", outcome.stdout(), outcome.toString());
        }
        Outcome unknown = cli.run("serve", "-config", Files.writeString(dir.resolve("unknown.yaml"), "sandbox:\n  timeot: 5s\n").toString());
        assertEquals(Exit.CONFIG.code, unknown.exit(), unknown.toString());
        assertEquals("nix-exec: config " + dir.resolve("unknown.yaml") + ": sandbox.timeot: unknown key", unknown.stderr().strip());
    }

    @Test
    void anOlderJavaIsNamedInOneLineBeforeItRuns() throws Exception {
        // a JDK 17 as the launcher sees one: its release file; its java must never be started
        Path jdk = Files.createTempDirectory("nix-exec-old-jdk");
        try {
            Path java = Files.createDirectories(jdk.resolve("bin")).resolve("java");
            Files.writeString(java, "#!/bin/sh\necho 'the old java ran' >&2\nexit 99\n");
            java.toFile().setExecutable(true);
            Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"17.0.9\"\n");
            ProcessBuilder builder = new ProcessBuilder(CommandLine.COMMAND.toString(), "list").redirectErrorStream(true);
            builder.environment().put("JAVA_HOME", jdk.toString());
            Process command = builder.start();
            String output = new String(command.getInputStream().readAllBytes());
            assertEquals(Exit.CONFIG.code, command.waitFor(), output);
            assertEquals("nix-exec: needs Java 21 or newer, " + java + " is Java 17: set JAVA_HOME to a newer JDK", output.strip());
        } finally {
            deleteTree(jdk);
        }
    }

    private static void awaitReady(String base, Process service) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (true) {
            assertTrue(service.isAlive(), "the service stopped:\n" + log());
            try {
                int status = http.send(HttpRequest.newBuilder(URI.create(base + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            assertTrue(System.nanoTime() < deadline, "not ready in 180 s:\n" + log());
            Thread.sleep(250);
        }
    }

    /** A job submitted with the operator's key, waited for (up to 60 s). */
    private static HttpResponse<String> submit(String base, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs?wait=60"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String mcpServerName(String base) throws Exception {
        String initialize = """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",\
                "capabilities":{},"clientInfo":{"name":"serve-flags-test","version":"1"}}}""";
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/mcp"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(initialize)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        String body = answer.body();
        String json = body.lines().filter(l -> l.startsWith("data:")).map(l -> l.substring(5)).findFirst().orElse(body);
        return JSON.readTree(json).path("result").path("serverInfo").path("name").asText();
    }

    private static String log() {
        try {
            return "\nservice log:\n" + Files.readString(STATE.resolve("serve.log"));
        } catch (IOException e) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}

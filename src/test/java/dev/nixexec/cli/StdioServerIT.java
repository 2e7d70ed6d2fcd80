package dev.nixexec.cli;

import static dev.nixexec.testing.Api.memberKey;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code nix-exec} with no command as MCP clients start it: the official TypeScript SDK's
 * {@code StdioClientTransport}, a Python stdio client (src/test/python/stdio_client.py) and this
 * test's own line-by-line client, each starting the real {@code target/nix-exec}. Relayed to a
 * team server ({@code NIXEXEC_SERVER}, this test's service), and in local mode, where several
 * clients share one in-process service and the last one left takes it over.
 */
@QuarkusIntegrationTest
class StdioServerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = CommandLine.REPO.resolve("target/test-state/"
            + System.getProperty("nixexec-test.tier", "default") + "/stdio");
    private static final List<String> FIXTURE = List.of("-nixpkgs-url", "path:" + CommandLine.REPO.resolve("nix/testing/nixpkgs"),
            "-substituters", "none", "-Dnixexec.executor.nix-options=sandbox=false", "-Dnixexec.package-index.at-start=false");

    @TestHTTPResource("/")
    URL base;

    @Test
    void relaysToATeamServer() throws Exception {
        Map<String, String> env = baseEnvironment();
        env.put("NIXEXEC_SERVER", base.toString());
        env.put("NIXEXEC_KEY", memberKey("stdio"));
        String sdk = typeScriptClient("relay-sdk", env, List.of());
        assertTrue(sdk.contains("server relay-sdk nix-exec"), sdk);
        // nix-exec's README's args: the service's flags are the server's, and said to be ignored
        String python = pythonClient("relay-python", env, List.of("-log-level", "debug", "-timeout", "60s"));
        assertTrue(python.contains("server relay-python nix-exec"), python);
        assertTrue(python.contains("the service's flags are that server's to set, ignored here: -log-level -timeout"), python);

        env.put("NIXEXEC_KEY", "nx_not_a_key");
        try (StdioSession wrongKey = StdioSession.start(env, List.of())) {
            JsonNode refused = wrongKey.request("initialize", initializeParams());
            assertTrue(refused.has("error"), refused.toString());
            assertEquals(-32001, refused.path("error").path("code").asInt(), refused.toString());
        }

        // --server and --key, as every client command takes them, name the team's server over the variables
        env.put("NIXEXEC_SERVER", "http://127.0.0.1:9");
        try (StdioSession flagged = StdioSession.start(env,
                List.of("--server", base.toString(), "--key", memberKey("stdio-flags"), "-timeout", "60s"))) {
            JsonNode hello = flagged.request("initialize", initializeParams());
            assertEquals("nix-exec", hello.path("result").path("serverInfo").path("name").asText(), hello.toString());
            assertEquals(0, flagged.leave(), flagged.stderr());
            await().atMost(Duration.ofSeconds(30)).until(() -> flagged.stderr()
                    .contains("(--server): the service's flags are that server's to set, ignored here: -timeout\n"));
        }
        // --json answers nothing here: one line and the usage exit, before anything starts
        try (StdioSession json = StdioSession.start(env, List.of("--json"))) {
            assertEquals(Exit.USAGE.code, json.leave(), json.stderr());
            await().atMost(Duration.ofSeconds(30)).until(() -> json.stderr().startsWith("nix-exec: --json: give a command"));
        }
    }

    @Test
    void localModeServesSeveralClientsAndTheLastOneLeftTakesItOver() throws Exception {
        deleteTree(ROOT);
        Path home = Files.createDirectories(ROOT.resolve("home"));
        // nix-exec's documented defaults, verbatim: a directory under ~, "" workspace, null substituters, []
        Path defaults = Files.writeString(Files.createDirectories(ROOT.resolve("etc")).resolve("config.yaml"), """
                server:
                  name: nix-exec
                sandbox:
                  timeout: 30s
                  max_output_bytes: 1048576
                  workspace_path: ""
                  package_denylist: []
                executor:
                  cache_dir: ~/.cache/nix-exec
                  nixpkgs_url: github:NixOS/nixpkgs/nixos-unstable
                  substituters: null
                logging:
                  level: info
                  format: text
                """);
        Map<String, String> env = baseEnvironment();
        env.put("XDG_STATE_HOME", ROOT.resolve("xdg-state").toString());
        env.put("NIX_EXEC_CONFIG", defaults.toString());
        env.put("JAVA_TOOL_OPTIONS", "-Duser.home=" + home);
        Path stateDir = ROOT.resolve("xdg-state/nix-exec");
        // as nix-exec's README configures MCP clients, with this machine's offline nixpkgs
        List<String> flags = new ArrayList<>(List.of("-log-level", "debug", "-timeout", "60s", "-name", "stdio-local",
                "-package-denylist", "jq"));
        flags.addAll(FIXTURE);

        try (StdioSession first = StdioSession.start(env, flags)) {
            JsonNode hello = first.request("initialize", initializeParams());
            assertEquals("stdio-local", hello.path("result").path("serverInfo").path("name").asText(), hello + first.stderr());
            first.notify("notifications/initialized");
            assertTrue(first.stderr().contains("starting the service on " + stateDir), first.stderr());

            // the service answers only those given its secret, which only this user can read
            Path endpoint = stateDir.resolve(StdioServer.ENDPOINT_FILE);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(endpoint)));
            JsonNode published = JSON.readTree(Files.readString(endpoint));
            String live = "http://127.0.0.1:" + published.path("port").asInt() + "/q/health/live";
            assertEquals(401, status(live, null));
            assertEquals(401, status("http://127.0.0.1:" + published.path("port").asInt() + "/v1/jobs", "wrong"));
            assertEquals(200, status(live, published.path("secret").asText()));

            // two more MCP clients on this machine: both relay to the first one's service
            String sdk = typeScriptClient("local-sdk", env, flags);
            assertTrue(sdk.contains("server local-sdk stdio-local"), sdk);
            assertFalse(sdk.contains("starting the service"), sdk);
            String python = pythonClient("local-python", env, flags);
            assertFalse(python.contains("starting the service"), python);

            try (StdioSession second = StdioSession.start(env, flags)) {
                second.request("initialize", initializeParams());
                second.notify("notifications/initialized");
                assertFalse(second.stderr().contains("starting the service"), second.stderr());
                assertTrue(second.stderr().matches("(?s).*this one.s flags are not applied: [^\\n]*-timeout.*"), second.stderr());

                JsonNode denied = first.request("tools/call", runCode("echo no", "jq"));
                assertTrue(denied.path("result").path("isError").asBoolean(), denied.toString());
                assertTrue(denied.toString().contains("jq"), denied.toString());

                // the first client leaves: its service stops; the second one's next request finds it gone and runs its own
                assertEquals(0, first.leave(), first.stderr());
                JsonNode after = second.request("tools/call", runCode("echo after-$((6*7))", null));
                assertFalse(after.path("result").path("isError").asBoolean(true), after + second.stderr());
                assertTrue(after.toString().contains("after-42"), after.toString());
                assertTrue(second.stderr().contains("starting the service on " + stateDir), second.stderr());
                assertEquals(0, second.leave(), second.stderr());
            }
        }
        assertTrue(Files.isDirectory(home.resolve(".cache/nix-exec")), "cache_dir: ~/.cache/nix-exec is under the home");
        assertFalse(Files.exists(CommandLine.REPO.resolve("~")), "no directory named ~");
    }

    private static Map<String, String> baseEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv("PATH"));
        env.put("HOME", System.getProperty("user.home"));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        return env;
    }

    private static String typeScriptClient(String label, Map<String, String> env, List<String> flags) throws Exception {
        List<String> args = new ArrayList<>(List.of(label, JSON.writeValueAsString(env), CommandLine.COMMAND.toString()));
        args.addAll(flags);
        NodeProject.Outcome outcome = new NodeProject("mcp").run("stdio-check.mjs", 300, args.toArray(String[]::new));
        assertEquals(0, outcome.exitCode(), outcome.output());
        for (String step : List.of("initialize", "tools/list", "run_code")) {
            assertTrue(outcome.output().contains("ok " + label + " " + step), outcome.output());
        }
        assertTrue(outcome.output().contains("all " + label + " checks passed"), outcome.output());
        return outcome.output();
    }

    private static String pythonClient(String label, Map<String, String> env, List<String> flags) throws Exception {
        List<String> argv = new ArrayList<>(List.of("python3", CommandLine.REPO.resolve("src/test/python/stdio_client.py").toString(),
                label, CommandLine.COMMAND.toString()));
        argv.addAll(flags);
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        }, command -> Thread.ofVirtual().start(command));
        assertTrue(process.waitFor(300, TimeUnit.SECONDS), "the Python client did not end");
        String text = output.get();
        assertEquals(0, process.exitValue(), text);
        assertTrue(text.contains("all " + label + " checks passed"), text);
        return text;
    }

    private static int status(String url, String bearer) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static ObjectNode initializeParams() {
        ObjectNode params = JSON.createObjectNode().put("protocolVersion", "2025-06-18");
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "stdio-it").put("version", "1");
        return params;
    }

    private static ObjectNode runCode(String code, String denied) {
        ObjectNode params = JSON.createObjectNode().put("name", "run_code");
        ObjectNode arguments = params.putObject("arguments").put("language", "bash").put("code", code);
        if (denied != null) {
            arguments.putArray("packages").add(denied);
        }
        return params;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                // never through a link: the service's GC roots point into /nix/store, and File.setWritable
                // follows them (it once made environments' store directories writable)
                if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
                }
                Files.deleteIfExists(path);
            }
        }
    }

    /** A {@code nix-exec} process spoken to as MCP's stdio transport defines: one JSON-RPC message a line. */
    private static final class StdioSession implements AutoCloseable {
        private final Process process;
        private final OutputStream in;
        private final BufferedReader out;
        private final StringBuffer stderr = new StringBuffer();
        private int nextId;

        private StdioSession(Process process) {
            this.process = process;
            this.in = process.getOutputStream();
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            Thread.ofVirtual().start(() -> {
                try (BufferedReader lines = process.errorReader(StandardCharsets.UTF_8)) {
                    lines.lines().forEach(line -> stderr.append(line).append('\n'));
                } catch (IOException | java.io.UncheckedIOException e) {
                    // the process ended
                }
            });
        }

        static StdioSession start(Map<String, String> env, List<String> flags) throws IOException {
            List<String> argv = new ArrayList<>(List.of(CommandLine.COMMAND.toString()));
            argv.addAll(flags);
            ProcessBuilder builder = new ProcessBuilder(argv);
            builder.environment().clear();
            builder.environment().putAll(env);
            return new StdioSession(builder.start());
        }

        /** Sends a request and returns its answer; every line before it must be a JSON-RPC message too. */
        JsonNode request(String method, JsonNode params) throws Exception {
            int id = ++nextId;
            ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
            message.set("params", params);
            write(message);
            CompletableFuture<JsonNode> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    String line;
                    while ((line = out.readLine()) != null) {
                        JsonNode read = JSON.readTree(line);
                        assertEquals("2.0", read.path("jsonrpc").asText(), line);
                        if (read.path("id").asInt(-1) == id && !read.has("method")) {
                            return read;
                        }
                    }
                    throw new AssertionError("stdout ended before the answer to " + method + "\n" + stderr);
                } catch (IOException e) {
                    throw new AssertionError("stdout carried something that is not JSON: " + e.getMessage());
                }
            }, command -> Thread.ofVirtual().start(command));
            return answer.get(300, TimeUnit.SECONDS);
        }

        void notify(String method) throws IOException {
            write(JSON.createObjectNode().put("jsonrpc", "2.0").put("method", method));
        }

        String stderr() {
            return stderr.toString();
        }

        private void write(JsonNode message) throws IOException {
            in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** Ends a process a failed test left running. */
        @Override
        public void close() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        }

        /** Closes stdin, as a client that leaves does, and returns the exit code. */
        int leave() throws Exception {
            if (process.isAlive()) {
                try {
                    in.close();
                } catch (IOException e) {
                    // already closed
                }
            }
            await().atMost(Duration.ofSeconds(120)).until(() -> !process.isAlive());
            return process.exitValue();
        }
    }
}

package dev.nixexec.cli;

import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.Api;
import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.CommandLine.Outcome;
import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The real {@code target/nix-exec} against the packaged service: every client command, the
 * NDJSON shape, the exit codes, {@code enter} through a pipe and on a terminal ({@code script}
 * gives it one), {@code --server}/{@code --key} over their variables, and event streams that a
 * proxy breaks, resumed with nothing lost or repeated.
 */
@QuarkusIntegrationTest
class CommandLineIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    private CommandLine as(String key) {
        return CommandLine.against(base.toString(), key);
    }

    @Test
    void runIsTheProgram() throws Exception {
        CommandLine cli = as(memberKey("cli-run"));
        Outcome run = cli.run("run", "-l", "python", "import sys; print('hi'); print('oops', file=sys.stderr); sys.exit(3)");
        assertEquals(3, run.exit(), run.toString());
        assertEquals("hi\n", run.stdout(), run.toString());
        assertEquals("oops\n", run.stderr(), run.toString());

        Outcome fromStdin = cli.runWithInput("echo $((6 * 7))", "run", "-l", "bash", "-");
        assertEquals(0, fromStdin.exit(), fromStdin.toString());
        assertEquals("42\n", fromStdin.stdout());

        Outcome stdin = cli.runWithInput("abc", "run", "-l", "python", "-i", "--", "import sys; print(sys.stdin.read().upper())");
        assertEquals("ABC\n", stdin.stdout(), stdin.toString());

        Outcome packages = cli.run("run", "-l", "bash", "--with", "jq", "-e", "V=7", "echo '{\"v\":'$V'}' | jq .v");
        assertEquals("7\n", packages.stdout(), packages.toString());

        // --profile: the profile's tools are the program's (jq comes from offline-review alone here)
        assertEquals(new Outcome(0, "42\n", ""), cli.run("run", "-l", "bash", "--profile", "offline-review", "jq -n '6 * 7'"));
        // --network: the job gets a network namespace of its own, with the user-mode stack's tap0 beside lo
        CommandLine networked = as(Api.key(Api.tenant("cli-network", Map.of("network", true)), "member"));
        Outcome network = networked.run("run", "-l", "bash", "--network",
                "while read -r line; do case $line in *:*) echo \"${line%%:*}\" ;; esac; done < /proc/net/dev");
        assertEquals(0, network.exit(), network.toString());
        assertEquals(List.of("lo", "tap0"), network.stdoutLines().stream().map(String::strip).sorted().toList(),
                network.toString());
    }

    @Test
    void jsonStreamsAreNdjsonOfTheJobsEvents() throws Exception {
        CommandLine cli = as(memberKey("cli-json"));
        Outcome run = cli.run("run", "--json", "-l", "bash", "echo a; echo b >&2; exit 2");
        assertEquals(2, run.exit(), run.toString());
        List<JsonNode> events = ndjson(run.stdout());
        assertInJobOrder(events);
        assertEquals("lifecycle", events.get(0).path("type").asText(), run.stdout());
        assertEquals("queued", events.get(0).path("payload").path("status").asText(), run.stdout());
        JsonNode result = events.get(events.size() - 1);
        assertEquals("result", result.path("type").asText());
        assertEquals("failed", result.path("payload").path("status").asText());
        assertEquals(2, result.path("payload").path("exit_code").asInt());
        assertTrue(events.stream().anyMatch(e -> e.path("type").asText().equals("stdout")
                && e.path("payload").path("text").asText().equals("a\n")), run.stdout());
        assertTrue(events.stream().anyMatch(e -> e.path("type").asText().equals("stderr")
                && e.path("payload").path("text").asText().equals("b\n")), run.stdout());

        // logs: the same stream, resumable after any event; a resume past the end still ends with the result
        String job = result.path("payload").path("id").asText();
        Outcome logs = cli.run("logs", "--json", job);
        assertEquals(run.stdout(), logs.stdout(), "logs --json replays the stream the run printed");
        int middle = events.get(2).path("sequence").asInt();
        List<JsonNode> resumed = ndjson(cli.run("logs", "--json", "--since", Integer.toString(middle), job).stdout());
        assertEquals(events.subList(3, events.size()), resumed);
        List<JsonNode> pastTheEnd = ndjson(cli.run("logs", "--json", "--since", "9999", job).stdout());
        assertEquals(List.of(result), pastTheEnd);

        Outcome text = cli.run("logs", job);
        assertEquals(0, text.exit(), text.toString());
        assertEquals("a\n", text.stdout());
    }

    @Test
    void aBrokenEventStreamIsResumedWithNothingLostOrRepeated() throws Exception {
        String key = memberKey("cli-resume");
        // ten lines over about four seconds; the marker the proxy cuts at is printed, never in the code
        String ticks = "for i in {1..10}; do echo tick-$i; sleep 0.4; done; echo done >&2; exit 3";
        String printed = IntStream.rangeClosed(1, 10).mapToObj(i -> "tick-" + i + "\n")
                .collect(Collectors.joining());
        try (CuttingProxy proxy = new CuttingProxy(base.getHost(), base.getPort(), "tick-3")) {
            CommandLine cli = as(key).with(Map.of("NIXEXEC_SERVER", "http://127.0.0.1:" + proxy.port()));
            // logs --json follows a job while it runs, run follows its own: each stream is cut once
            String job = Api.submit(key, Map.of("language", "bash", "code", ticks));
            CompletableFuture<Outcome> logs = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    logs.complete(cli.run("logs", "--json", job));
                } catch (Exception | AssertionError e) {
                    logs.completeExceptionally(e);
                }
            });
            Outcome run = cli.run("run", "-l", "bash", ticks);
            Outcome followed = logs.get(200, TimeUnit.SECONDS);
            assertEquals(2, proxy.cuts(), "each command's stream was cut once:\n" + run + "\n" + followed);

            assertEquals(new Outcome(3, printed, "done\n"), run, "run: every line once, in order; the program's exit code");
            assertEquals(0, followed.exit(), followed.toString());
            // the events, as the server streams them to a reader whose connection never broke
            HttpResponse<String> whole = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(base.toURI().resolve("v1/jobs/" + job + "/events"))
                            .header("Authorization", "Bearer " + key).header("Accept", "application/x-ndjson").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, whole.statusCode(), whole.body());
            List<JsonNode> expected = ndjson(whole.body().lines().filter(l -> !l.isBlank())
                    .collect(Collectors.joining("\n")));
            List<JsonNode> events = ndjson(followed.stdout());
            assertEquals(expected, events, "logs --json: every event once, in order");
            assertEquals(printed, events.stream().filter(e -> e.path("type").asText().equals("stdout"))
                    .map(e -> e.path("payload").path("text").asText()).collect(Collectors.joining()));
            JsonNode result = events.get(events.size() - 1);
            assertEquals("result", result.path("type").asText(), followed.stdout());
            assertEquals(3, result.path("payload").path("exit_code").asInt(), followed.stdout());
        }
    }

    /**
     * A TCP proxy in front of the service that breaks each job event stream once: when the
     * answer to a {@code GET .../events} without {@code Last-Event-ID} reaches {@code marker}, it
     * passes the bytes before the marker's last one (the client is left mid-line), then closes
     * both sides. A resumed stream (with {@code Last-Event-ID}) and every other request pass whole.
     */
    private static final class CuttingProxy implements AutoCloseable {

        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final String host;
        private final int port;
        private final byte[] marker;
        private final AtomicInteger cuts = new AtomicInteger();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        CuttingProxy(String host, int port, String marker) throws IOException {
            this.host = host;
            this.port = port;
            this.marker = marker.getBytes(StandardCharsets.US_ASCII);
            Thread.ofVirtual().start(this::accept);
        }

        int port() {
            return listener.getLocalPort();
        }

        int cuts() {
            return cuts.get();
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket service = new Socket(host, port);
                    sockets.add(client);
                    sockets.add(service);
                    AtomicBoolean stream = new AtomicBoolean();
                    Thread.ofVirtual().start(() -> requests(client, service, stream));
                    Thread.ofVirtual().start(() -> answers(client, service, stream));
                }
            } catch (IOException e) {
                // the proxy was closed
            }
        }

        /** Client to service; notes whether the request now sent (keep-alive: one at a time) is an unresumed event stream. */
        private void requests(Socket client, Socket service, AtomicBoolean stream) {
            byte[] buffer = new byte[8192];
            try {
                var in = client.getInputStream();
                var out = service.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    String text = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                    if (text.matches("(?s)[A-Z]+ /.*")) {
                        stream.set(text.startsWith("GET ") && text.contains("/events")
                                && !text.toLowerCase(Locale.ROOT).contains("\nlast-event-id:"));
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(client, service);
            }
        }

        /** Service to client, cut in the marker of an unresumed event stream. */
        private void answers(Socket client, Socket service, AtomicBoolean stream) {
            byte[] buffer = new byte[8192];
            byte[] carry = new byte[0];
            try {
                var in = service.getInputStream();
                var out = client.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (stream.get()) {
                        // the marker may straddle two reads: look in the end of the last one too
                        byte[] window = new byte[carry.length + n];
                        System.arraycopy(carry, 0, window, 0, carry.length);
                        System.arraycopy(buffer, 0, window, carry.length, n);
                        int at = indexOf(window, marker);
                        if (at >= 0) {
                            out.write(buffer, 0, at + marker.length - 1 - carry.length);
                            out.flush();
                            cuts.incrementAndGet();
                            return;
                        }
                        carry = Arrays.copyOfRange(window, Math.max(0, window.length - marker.length + 1), window.length);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(client, service);
            }
        }

        private static int indexOf(byte[] bytes, byte[] part) {
            outer:
            for (int i = 0; i + part.length <= bytes.length; i++) {
                for (int j = 0; j < part.length; j++) {
                    if (bytes[i + j] != part[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }

        private static void closeQuietly(Socket... sockets) {
            for (Socket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // already closed
                }
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            closeQuietly(sockets.toArray(Socket[]::new));
        }
    }

    private static List<JsonNode> ndjson(String stdout) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        int last = 0;
        for (String line : stdout.lines().toList()) {
            JsonNode event = JSON.readTree(line);
            assertEquals(Set.of("type", "sequence", "ts", "payload"), fieldNames(event), line);
            assertTrue(Set.of("lifecycle", "stdout", "stderr", "result").contains(event.path("type").asText()), line);
            assertTrue(event.path("sequence").asInt() > last, "sequence strictly increasing: " + stdout);
            assertTrue(event.path("ts").asText().matches("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z"), line);
            last = event.path("sequence").asInt();
            events.add(event);
        }
        return events;
    }

    /**
     * A job's whole stream in its order: lifecycle from queued to running, output only while it
     * runs, the final status, then the result, once and last.
     */
    private static void assertInJobOrder(List<JsonNode> events) {
        String order = events.stream().map(e -> switch (e.path("type").asText()) {
            case "lifecycle" -> e.path("payload").path("status").asText();
            case "stdout", "stderr" -> "output";
            default -> e.path("type").asText();
        }).collect(Collectors.joining(" "));
        assertTrue(order.matches("queued (building )?(running (output )*)?(succeeded|failed|timed_out|cancelled|error) result"),
                order + "\n" + events);
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new java.util.HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void everyOtherEndHasItsOwnExitCodeAndOneLine() throws Exception {
        CommandLine cli = as(memberKey("cli-exits"));
        assertFails(cli.run("run", "-l", "bash", "--timeout", "1", "sleep 30"), Exit.TIMED_OUT, "timed out");
        assertFails(cli.run("run", "-l", "bash", "--with", "no-such-package-zz", "true"), Exit.COULD_NOT_RUN, "no-such-package-zz");
        assertFails(cli.run("run", "-l", "klingon", "x"), Exit.REFUSED, "klingon");
        assertFails(cli.run("status", "no-such-session"), Exit.NOT_FOUND, "no-such-session");
        assertFails(cli.run("run", "-l", "bash", "--frobnicate", "true"), Exit.USAGE, "--frobnicate");
        assertFails(cli.run("run", "true"), Exit.USAGE, "--language");
        assertFails(cli.run("frobnicate"), Exit.USAGE, "frobnicate");
        assertFails(cli.run("enter", "--json", "no-such-session"), Exit.NOT_FOUND, "no-such-session");
        // --key beats NIXEXEC_KEY: a wrong key given as the flag is refused though the variable's is right
        assertFails(cli.run("list", "--key", "nx_not_a_key"), Exit.DENIED, "key");
        assertFails(as(null).run("jobs"), Exit.DENIED, "key");
        assertFails(CommandLine.against("http://127.0.0.1:" + closedPort(), "nx_x").run("list"), Exit.UNREACHABLE, "cannot reach");
        assertFails(CommandLine.against("ftp://example", "nx_x").run("list"), Exit.USAGE, "--server");

        // a cap reached: try again later; a key whose role may not do this: denied, as a wrong key is
        String capped = Api.tenant("cli-capped", Map.of("max_queued", 0));
        assertFails(as(Api.key(capped, "member")).run("run", "-l", "bash", "true"), Exit.BUSY, "cap");
        assertFails(as(Api.key(capped, "auditor")).run("run", "-l", "bash", "true"), Exit.DENIED, "auditor");
        // a server that is not nix-exec: a page where JSON was due, a 500
        HttpServer other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/", exchange -> {
            byte[] page = "<html>not nix-exec</html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().startsWith("/failing/") ? 500 : 200, page.length);
            try (var body = exchange.getResponseBody()) {
                body.write(page);
            }
        });
        other.start();
        try {
            String at = "http://127.0.0.1:" + other.getAddress().getPort();
            assertFails(CommandLine.against(at, "nx_x").run("list"), Exit.SERVER_ERROR, "not JSON");
            assertFails(CommandLine.against(at + "/failing", "nx_x").run("list"), Exit.SERVER_ERROR, "500");
        } finally {
            other.stop(0);
        }
    }

    @Test
    void ctrlCCancelsTheJobItStarted() throws Exception {
        String key = memberKey("cli-interrupt");
        // perl puts back SIGINT's default, which a test run started in a shell's background inherits ignored
        Process run = as(key).start(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!",
                CommandLine.COMMAND.toString(), "run", "-l", "bash", "echo started; sleep 60"));
        CompletableFuture<String> stderr = textOf(run.getErrorStream());
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("started", out.readLine(), "the program runs");
            // Ctrl-C on a terminal: SIGINT to the command (perl and the launcher exec: the pid is the JVM's)
            assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(run.pid())).start().waitFor());
            assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the command ends at Ctrl-C");
            assertEquals(null, out.readLine());
        } finally {
            run.destroyForcibly();
        }
        String err = stderr.get(10, TimeUnit.SECONDS);
        assertEquals(Exit.CANCELLED.code, run.exitValue(), err);
        java.util.regex.Matcher cancelled = java.util.regex.Pattern.compile("nix-exec: job (\\S+) cancelled\n").matcher(err);
        assertTrue(cancelled.matches(), err);
        assertEquals("cancelled", read(Api.as(key).get("/v1/jobs/" + cancelled.group(1) + "?wait=60").then().statusCode(200)
                .extract().asString(), "status"), "the job was cancelled, not left running");
    }

    private static void assertFails(Outcome outcome, Exit exit, String mentions) {
        assertEquals(exit.code, outcome.exit(), outcome.toString());
        List<String> lines = outcome.stderr().lines().toList();
        assertEquals(1, lines.size(), "one line on stderr: " + outcome);
        assertTrue(lines.get(0).startsWith("nix-exec: ") && lines.get(0).contains(mentions), outcome.toString());
        assertFalse(outcome.stderr().contains("Exception") || outcome.stderr().contains("\tat "), outcome.toString());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aSessionFromCreateToDestroy() throws Exception {
        String key = memberKey("cli-session");
        CommandLine cli = as(key);
        Outcome created = cli.run("create", "--with", "jq", "--name", "work", "--agent", "cli-test");
        assertEquals(0, created.exit(), created.toString());
        String id = created.stdout().strip();
        assertTrue(id.matches("[0-9a-f-]{36}"), created.toString());

        // --server and --key beat NIXEXEC_SERVER and NIXEXEC_KEY: both variables wrong, both flags right
        Outcome flags = CommandLine.against("http://127.0.0.1:" + closedPort(), "nx_not_a_key")
                .run("list", "--server", base.toString(), "--key", key);
        assertEquals(0, flags.exit(), flags.toString());
        assertTrue(flags.stdout().contains(id), flags.toString());
        JsonNode listed = JSON.readTree(cli.run("list", "--json").stdout());
        assertEquals(id, listed.get(0).path("id").asText());
        JsonNode status = JSON.readTree(cli.run("status", "--json", "work").stdout());
        assertEquals("ready", status.path("status").asText());
        assertTrue(cli.run("status", id).stdout().contains("status: ready"));

        Outcome jq = cli.runWithInput("{\"a\": 5}", "exec", "-i", "work", "--", "jq", ".a");
        assertEquals(0, jq.exit(), jq.toString());
        assertEquals("5\n", jq.stdout());
        // argv as given: no shell between the command line and the program
        Outcome argv = cli.run("exec", id, "--", "printf", "%s|", "a b", "$HOME", "*");
        assertEquals("a b|$HOME|*|", argv.stdout(), argv.toString());
        Outcome failing = cli.run("exec", id, "--", "sh", "-c", "echo out; echo err >&2; exit 4");
        assertEquals(new Outcome(4, "out\n", "err\n"), failing);
        // exec --json: the same NDJSON stream as run's, and still the program's exit code
        Outcome json = cli.run("exec", "--json", id, "--", "sh", "-c", "echo x; echo y >&2; exit 5");
        assertEquals(5, json.exit(), json.toString());
        List<JsonNode> execEvents = ndjson(json.stdout());
        assertInJobOrder(execEvents);
        // sorted: stdout and stderr come through two pipes, so their order between them is not the program's
        assertEquals(List.of("stderr y\n", "stdout x\n"), execEvents.stream().filter(e -> e.path("type").asText().startsWith("std"))
                .map(e -> e.path("type").asText() + " " + e.path("payload").path("text").asText()).sorted().toList(), json.stdout());
        assertEquals(5, execEvents.get(execEvents.size() - 1).path("payload").path("exit_code").asInt(), json.stdout());
        Outcome script = cli.run("exec", id, "--code", "echo kept > /workspace/note; echo written");
        assertEquals("written\n", script.stdout(), script.toString());

        // enter, from a pipe: the shell reads the file the exec wrote, and its exit code is the command's
        Outcome shell = cli.runWithInput("cat /workspace/note\nexit 7\n", "enter", "work");
        assertEquals(7, shell.exit(), shell.toString());
        assertTrue(shell.stdout().contains("kept"), shell.toString());
        Outcome endOfInput = cli.runWithInput("echo last\n", "enter", id);
        assertEquals(0, endOfInput.exit(), "the end of the pipe ends the shell: " + endOfInput);
        // enter --json: the screen as stdout events between the attach and the shell's end, numbered
        // from 1, and still the shell's exit code
        Outcome jsonShell = cli.runWithInput("echo hi-$((40+2))\nexit 3\n", "enter", "--json", "work");
        assertEquals(3, jsonShell.exit(), jsonShell.toString());
        List<JsonNode> shellEvents = ndjson(jsonShell.stdout());
        assertTrue(shellEvents.size() >= 3, jsonShell.toString());
        for (int i = 0; i < shellEvents.size(); i++) {
            assertEquals(i + 1, shellEvents.get(i).path("sequence").asInt(), jsonShell.stdout());
        }
        assertEquals("lifecycle attached", shellEvents.get(0).path("type").asText() + " "
                + shellEvents.get(0).path("payload").path("status").asText(), jsonShell.stdout());
        JsonNode shellResult = shellEvents.get(shellEvents.size() - 1);
        assertEquals("result", shellResult.path("type").asText(), jsonShell.stdout());
        assertEquals(3, shellResult.path("payload").path("exit_code").asInt(-1), jsonShell.stdout());
        List<JsonNode> screenEvents = shellEvents.subList(1, shellEvents.size() - 1);
        assertTrue(screenEvents.stream().allMatch(e -> "stdout".equals(e.path("type").asText())), jsonShell.stdout());
        assertTrue(screenEvents.stream().map(e -> e.path("payload").path("text").asText()).collect(Collectors.joining())
                .contains("hi-42"), jsonShell.stdout());

        // destroyed under an open shell: the connection ends (4004) without the shell's exit status
        Process open = cli.start(List.of(CommandLine.COMMAND.toString(), "enter", "work"));
        StringBuffer screen = screenOf(open);
        CompletableFuture<String> openErr = textOf(open.getErrorStream());
        try (var keys = open.getOutputStream()) {
            // the pipe stays open: no end of input, the shell is still there when the session goes
            keys.write("echo open-$((1 + 1)); sleep 60\n".getBytes());
            keys.flush();
            awaitScreen(screen, "open-2", null, keys);
            Outcome destroyed = cli.run("destroy", "work");
            assertEquals(0, destroyed.exit(), destroyed.toString());
            assertTrue(open.waitFor(60, TimeUnit.SECONDS), "enter ends with its session: " + screen);
        } finally {
            open.destroyForcibly();
        }
        assertFails(new Outcome(open.exitValue(), screen.toString(), openErr.get(10, TimeUnit.SECONDS)), Exit.SHELL_LOST,
                "4004 the session was destroyed");
        assertEquals("destroyed", JSON.readTree(cli.run("status", "--json", id).stdout()).path("status").asText());
        assertFails(cli.run("exec", id, "--", "true"), Exit.REFUSED, "destroyed");
        assertFails(cli.run("enter", id), Exit.REFUSED, "");
    }

    @Test
    void createTakesASpecFileOrAProfileAndAnswersInJson() throws Exception {
        CommandLine cli = as(memberKey("cli-spec"));
        java.nio.file.Path spec = java.nio.file.Files.createTempFile("nix-exec-spec", ".yaml");
        try {
            java.nio.file.Files.writeString(spec, "packages: [jq]\nenv: {GREETING: hello}\n");
            Outcome created = cli.run("create", "--json", "--spec", spec.toString(), "--description", "from a spec",
                    "--idle-ttl", "10m");
            assertEquals(0, created.exit(), created.toString());
            JsonNode session = JSON.readTree(created.stdout());
            assertEquals("ready", session.path("status").asText(), created.stdout());
            assertEquals("[\"jq\"]", session.path("packages").toString(), created.stdout());
            assertEquals("from a spec", session.path("description").asText(), created.stdout());
            assertEquals(600, session.path("idle_ttl").asInt(), created.stdout());
            String id = session.path("id").asText();
            assertEquals(new Outcome(0, "hello\n1\n", ""), cli.run("exec", id, "--", "sh", "-c", "echo $GREETING; jq -n 1"));
            Outcome destroyed = cli.run("destroy", "--json", id);
            assertEquals("destroyed", JSON.readTree(destroyed.stdout()).path("status").asText(), destroyed.toString());
        } finally {
            java.nio.file.Files.deleteIfExists(spec);
        }
        Outcome profiled = cli.run("create", "--profile", "strict");
        assertEquals(0, profiled.exit(), profiled.toString());
        JsonNode status = JSON.readTree(cli.run("status", "--json", profiled.stdout().strip()).stdout());
        assertEquals("strict", status.path("profile").asText(), status.toString());
        // --network asks for it: this tenant's policy has none
        assertFails(cli.run("create", "--network"), Exit.REFUSED, "network");
    }

    @Test
    void aSessionWhoseBuildFails() throws Exception {
        Outcome created = as(memberKey("cli-failed")).run("create", "--with", "no-such-package-qq");
        assertEquals(Exit.COULD_NOT_RUN.code, created.exit(), created.toString());
        assertTrue(created.stderr().contains("no-such-package-qq"), created.toString());
    }

    @Test
    void buildCatalogAndJobs() throws Exception {
        CommandLine cli = as(memberKey("cli-build"));
        Outcome built = cli.run("build", "--with", "jq");
        assertEquals(0, built.exit(), built.toString());
        assertTrue(built.stdout().strip().matches("/nix/store/[a-z0-9]{32}-.+"), built.toString());
        JsonNode again = JSON.readTree(cli.run("build", "--json", "--with", "jq").stdout());
        assertEquals("ready", again.path("status").asText());
        assertEquals(built.stdout().strip(), again.path("store_path").asText());
        assertFails(cli.run("build", "--with", "no-such-package-zz"), Exit.COULD_NOT_RUN, "no-such-package-zz");

        Outcome catalog = cli.run("catalog", "--filter", "ripgrep");
        assertEquals(0, catalog.exit(), catalog.toString());
        assertTrue(catalog.stdout().lines().anyMatch(l -> l.startsWith("tool") && l.contains("ripgrep")), catalog.toString());
        JsonNode grouped = JSON.readTree(cli.run("catalog", "--json", "--grouped").stdout());
        assertTrue(grouped.path("agentCategories").isObject() && grouped.path("tools").isObject(), grouped.toString());

        // nixo's --workspace mounts a host directory in local mode only: with keys, one line naming the alternative
        assertFails(cli.run("create", "--workspace", ".", "--name", "cli-host-dir"), Exit.REFUSED, "tenant workspace");
        assertFails(cli.run("status", "cli-host-dir"), Exit.NOT_FOUND, "cli-host-dir");

        JsonNode jobs = JSON.readTree(cli.run("jobs", "--json", "--limit", "2").stdout());
        assertEquals(2, jobs.path("items").size(), jobs.toString());
        Outcome table = cli.run("jobs", "--status", "error");
        assertEquals("ID STATUS LANGUAGE EXIT CREATED", table.stdoutLines().get(0).replaceAll("\\s+", " "));
        assertTrue(table.stdout().contains(" error "), table.toString());
    }

    @Test
    void theVersionAndBashCompletionComeFromTheCommandItself() throws Exception {
        // the version the build wrote beside the jar (maven-archiver's record of the project's version)
        java.util.Properties built = new java.util.Properties();
        try (var in = java.nio.file.Files.newInputStream(CommandLine.REPO.resolve("target/maven-archiver/pom.properties"))) {
            built.load(in);
        }
        assertEquals(new Outcome(0, "nix-exec " + built.getProperty("version") + "\n", ""), as(null).run("--version"));

        Outcome script = as(null).run("completion");
        assertEquals(0, script.exit(), script.toString());
        java.nio.file.Path file = java.nio.file.Files.createTempFile("nix-exec-completion", ".bash");
        try {
            java.nio.file.Files.writeString(file, script.stdout());
            // compopt (which the script calls for a command with options that take a value, as the
            // top-level --server now is) works only inside a completion bash itself started: a no-op here
            Process bash = new ProcessBuilder("bash", "-c", "source \"$1\"; compopt() { :; }; COMP_WORDS=(nix-exec cre); COMP_CWORD=1; "
                    + "COMP_LINE='nix-exec cre'; COMP_POINT=12; _complete_nix-exec; printf '%s\\n' \"${COMPREPLY[@]}\"",
                    "bash", file.toString()).redirectErrorStream(true).start();
            String completed = new String(bash.getInputStream().readAllBytes());
            assertEquals(0, bash.waitFor(), completed);
            assertEquals("create", completed.strip());
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void enterOnATerminalIsRawAndFollowsTheWindowSize() throws Exception {
        CommandLine cli = as(memberKey("cli-terminal"));
        Outcome created = cli.run("create", "--name", "tty");
        assertEquals(0, created.exit(), created.toString());
        java.nio.file.Path ttyName = java.nio.file.Files.createTempFile("nix-exec-tty", ".name");
        // script(1) gives the command a pseudo-terminal; the paths reach its shell as variables
        Process script = cli.with(Map.of("NX_TTY", ttyName.toString(), "NX_COMMAND", CommandLine.COMMAND.toString()))
                .start(List.of("script", "-qec", "tty > \"$NX_TTY\"; stty cols 123 rows 45; exec \"$NX_COMMAND\" enter tty", "/dev/null"));
        StringBuffer screen = screenOf(script);
        try (var keys = script.getOutputStream()) {
            awaitScreen(screen, "sandbox:", null, keys);
            awaitScreen(screen, "45 123", "stty size\r", keys);
            // a window size change reaches the shell (SIGWINCH on the terminal, a resize message)
            String tty = java.nio.file.Files.readString(ttyName).strip();
            assertEquals(0, new ProcessBuilder("stty", "-F", tty, "cols", "100", "rows", "30").start().waitFor());
            awaitScreen(screen, "30 100", "stty size\r", keys);
            // raw mode: Ctrl-C is a byte for the remote shell, not a signal that ends this command
            keys.write("echo sleeping-$((1 + 1)); sleep 60\r".getBytes());
            keys.flush();
            awaitScreen(screen, "sleeping-2", null, keys);
            // (the echoed keys never show the words awaited: the shell computes them)
            awaitScreen(screen, "still-42", "\u0003echo still-$((40 + 2))\r", keys);
            keys.write("exit 3\r".getBytes());
            keys.flush();
            assertTrue(script.waitFor(60, TimeUnit.SECONDS), screen.toString());
            assertEquals(3, script.exitValue(), screen.toString());
        } finally {
            script.destroyForcibly();
            java.nio.file.Files.deleteIfExists(ttyName);
        }
    }

    /** What {@code process} prints, as it prints it. */
    private static StringBuffer screenOf(Process process) {
        StringBuffer screen = new StringBuffer();
        Thread.ofVirtual().start(() -> {
            byte[] buffer = new byte[4096];
            try (var in = process.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    screen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        return screen;
    }

    /** All of {@code stream}, read on a thread of its own. */
    private static CompletableFuture<String> textOf(java.io.InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
    }

    /** Types {@code keys} (if any) every 2 s until the screen shows {@code text}; at most 60 s. */
    private static void awaitScreen(StringBuffer screen, String text, String keys, java.io.OutputStream terminal)
            throws IOException, InterruptedException {
        int from = screen.length();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long nextKeys = 0;
        while (screen.indexOf(text, from) < 0) {
            assertTrue(System.nanoTime() < deadline, "the screen never showed '" + text + "':\n" + screen);
            if (keys != null && System.nanoTime() >= nextKeys) {
                terminal.write(keys.getBytes());
                terminal.flush();
                nextKeys = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            }
            Thread.sleep(50);
        }
    }
}

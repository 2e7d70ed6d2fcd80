package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * MCP's stdio transport carried to a service's Streamable HTTP endpoint ({@code /mcp}): each
 * JSON-RPC message read from stdin, one a line, is POSTed there with the session's
 * {@code Mcp-Session-Id}; what comes back (a JSON answer, or an SSE stream of the server's
 * notifications, requests and the answer) and what the server sends on its own GET stream is
 * written to stdout, one message a line, and nothing else is. Requests are relayed concurrently
 * (a long {@code run_code} does not hold up a {@code notifications/cancelled}); notifications
 * and answers in the order read.
 *
 * <p>When the service stops under it (local mode: the nix-exec process that ran it exited), the
 * relay asks {@link Reconnect} for another, opens a new MCP session there with the client's own
 * {@code initialize}, and sends a message that never reached the old one again. A request the old
 * service had taken is answered with an error rather than sent twice: it may have run.
 */
final class McpRelay {

    /** Where messages go: the {@code /mcp} URL and the bearer secret or key to send, if any. */
    record Upstream(URI mcp, Optional<String> bearer) {
    }

    /** Another upstream after {@code lost} stopped answering, if there is one. */
    interface Reconnect {
        Optional<Upstream> after(Upstream lost);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CONNECT_MS = 5_000;
    private static final String SESSION = "Mcp-Session-Id";

    private final Reconnect reconnect;
    private final Consumer<String> log;
    private final Set<Thread> inFlight = ConcurrentHashMap.newKeySet();
    /** Held while a line is written to stdout (apart from the relay's own lock, held while it recovers). */
    private final Object writing = new Object();
    private OutputStream out;
    private volatile Upstream upstream;
    private volatile String session;
    private volatile String protocolVersion;
    private volatile JsonNode initialize;
    private volatile boolean initialized;
    private volatile Thread listener;

    McpRelay(Upstream upstream, Reconnect reconnect, Consumer<String> log) {
        this.upstream = upstream;
        this.reconnect = reconnect;
        this.log = log;
    }

    /** Relays until {@code in} ends and every request read has its answer; then ends the MCP session. */
    int run(InputStream in, OutputStream out) throws InterruptedException {
        this.out = out;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.isBlank()) {
                    relay(line);
                }
            }
        } catch (IOException e) {
            log.accept("stdin: " + e.getMessage());
        }
        for (Thread request : inFlight) {
            request.join();
        }
        endSession();
        return Exit.OK.code;
    }

    private void relay(String line) {
        JsonNode message;
        try {
            message = JSON.readTree(line);
        } catch (IOException e) {
            emit(error(null, -32700, "Parse error: not a JSON-RPC message"));
            return;
        }
        String method = message.path("method").asText("");
        boolean request = message.isObject() && message.has("method") && message.has("id");
        if (method.equals("initialize")) {
            initialize = message;
            initialized = false;
            forward(message);
        } else if (request) {
            Thread thread = Thread.ofVirtual().unstarted(() -> {
                try {
                    forward(message);
                } finally {
                    inFlight.remove(Thread.currentThread());
                }
            });
            inFlight.add(thread);
            thread.start();
        } else {
            forward(message);
            if (method.equals("notifications/initialized")) {
                initialized = true;
                listen();
            }
        }
    }

    /** Sends a message, once more on a new session when the service was gone before it took it. */
    private void forward(JsonNode message) {
        for (int attempt = 0; ; attempt++) {
            Upstream target = upstream;
            try {
                post(target, message, this::emit);
                return;
            } catch (ConnectException | SessionGone e) {
                if (attempt > 0 || !recover(target, e instanceof SessionGone)) {
                    fail(message, "the nix-exec service at " + target.mcp() + " cannot be reached: " + e.getMessage());
                    return;
                }
            } catch (IOException e) {
                fail(message, "the connection to the nix-exec service broke before the answer (" + e.getMessage()
                        + "); the request is not sent again, it may have run");
                recover(target, false);
                return;
            }
        }
    }

    /**
     * Finds the service again (another upstream, or a new session on the same one) and repeats the
     * client's handshake there. Synchronized: concurrent requests that failed together recover once.
     */
    private synchronized boolean recover(Upstream lost, boolean sessionOnly) {
        if (upstream != lost) {
            return true;
        }
        if (!sessionOnly) {
            Optional<Upstream> next = reconnect.after(lost);
            if (next.isEmpty()) {
                return false;
            }
            upstream = next.get();
            log.accept("relaying to " + upstream.mcp() + " from now on");
        }
        session = null;
        JsonNode hello = initialize;
        if (hello == null) {
            return true;
        }
        try {
            post(upstream, hello, answer -> { });
            if (initialized) {
                post(upstream, JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"),
                        answer -> { });
                listen();
            }
            return true;
        } catch (IOException e) {
            log.accept("could not open a new MCP session at " + upstream.mcp() + ": " + e.getMessage());
            return false;
        }
    }

    private void post(Upstream target, JsonNode message, Consumer<String> answers) throws IOException {
        boolean hello = message.path("method").asText("").equals("initialize");
        HttpURLConnection connection = open(target, "POST", hello ? null : session);
        connection.setDoOutput(true);
        connection.setRequestProperty("Content-Type", "application/json");
        connection.setRequestProperty("Accept", "application/json, text/event-stream");
        try (OutputStream body = connection.getOutputStream()) {
            body.write(JSON.writeValueAsBytes(message));
        }
        int status = connection.getResponseCode();
        if (status == 404 && session != null && !hello) {
            connection.disconnect();
            throw new SessionGone();
        }
        if (hello && status / 100 == 2) {
            session = connection.getHeaderField(SESSION);
        }
        if (status == 202 || status == 204) {
            connection.disconnect();
            return;
        }
        String type = Optional.ofNullable(connection.getContentType()).orElse("");
        if (status / 100 == 2 && type.startsWith("text/event-stream")) {
            try (InputStream events = connection.getInputStream()) {
                readEvents(events, data -> {
                    if (hello) {
                        rememberVersion(data);
                    }
                    answers.accept(data);
                });
            }
            return;
        }
        InputStream stream = status / 100 == 2 ? connection.getInputStream() : connection.getErrorStream();
        String text = stream == null ? "" : new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        if (status / 100 == 2) {
            if (!text.isBlank()) {
                if (hello) {
                    rememberVersion(text);
                }
                answers.accept(text);
            }
            return;
        }
        JsonNode answer = parse(text);
        boolean request = message.has("id") && message.has("method");
        if (answer instanceof ObjectNode error && answer.has("jsonrpc") && answer.has("error")) {
            // the server's own JSON-RPC error (e.g. an unknown key); one refused before the body was
            // read names no id, and a stdio client waits for its request's
            if (request && error.path("id").isNull()) {
                error.set("id", message.get("id"));
            }
            answers.accept(error.toString());
        } else if (request) {
            answers.accept(error(message.get("id"), -32603, "the nix-exec service answered HTTP " + status
                    + (answer != null && answer.hasNonNull("detail") ? ": " + answer.get("detail").asText() : "")));
        } else {
            log.accept("the nix-exec service refused a message (HTTP " + status + "): " + Printable.line(text));
        }
    }

    private void rememberVersion(String answer) {
        JsonNode parsed = parse(answer);
        if (parsed != null && parsed.path("result").hasNonNull("protocolVersion")) {
            protocolVersion = parsed.path("result").get("protocolVersion").asText();
        }
    }

    /** The server's GET stream: its messages that answer no request, for as long as the session lives. */
    private synchronized void listen() {
        String mine = session;
        if (mine == null || (listener != null && listener.isAlive())) {
            return;
        }
        listener = Thread.ofVirtual().start(() -> {
            while (mine.equals(session)) {
                try {
                    HttpURLConnection connection = open(upstream, "GET", mine);
                    connection.setRequestProperty("Accept", "text/event-stream");
                    if (connection.getResponseCode() != 200) {
                        // 405: this server offers no such stream; messages then come with answers only
                        connection.disconnect();
                        return;
                    }
                    long opened = System.nanoTime();
                    try (InputStream events = connection.getInputStream()) {
                        readEvents(events, this::emit);
                    }
                    if (System.nanoTime() - opened < 1_000_000_000L) {
                        // a stream the server ends at once is not reopened in a busy loop
                        Thread.sleep(1_000);
                    }
                } catch (IOException e) {
                    return; // the service is gone: the next request finds out and recovers
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private void endSession() {
        String mine = session;
        session = null;
        if (mine == null) {
            return;
        }
        try {
            HttpURLConnection connection = open(upstream, "DELETE", mine);
            connection.getResponseCode();
            connection.disconnect();
        } catch (IOException e) {
            // the service is gone already: so is the session
        }
    }

    private HttpURLConnection open(Upstream target, String method, String sessionId) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) target.mcp().toURL().openConnection();
        connection.setRequestMethod(method);
        connection.setConnectTimeout(CONNECT_MS);
        connection.setUseCaches(false);
        target.bearer().ifPresent(secret -> connection.setRequestProperty("Authorization", "Bearer " + secret));
        if (sessionId != null) {
            connection.setRequestProperty(SESSION, sessionId);
        }
        if (protocolVersion != null) {
            connection.setRequestProperty("MCP-Protocol-Version", protocolVersion);
        }
        return connection;
    }

    /** Server-sent events: each event's data lines, joined, are one message. */
    private static void readEvents(InputStream events, Consumer<String> messages) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(events, StandardCharsets.UTF_8));
        StringBuilder data = new StringBuilder();
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
                if (!data.isEmpty()) {
                    messages.accept(data.toString());
                    data.setLength(0);
                }
            } else if (line.startsWith("data:")) {
                if (!data.isEmpty()) {
                    data.append('\n');
                }
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
            }
        }
        if (!data.isEmpty()) {
            messages.accept(data.toString());
        }
    }

    /** Writes one message as one line: re-serialized, so a line break inside the server's text cannot split it. */
    private void emit(String message) {
        JsonNode parsed = parse(message);
        if (parsed == null) {
            log.accept("the nix-exec service sent something that is not JSON: " + Printable.line(message));
            return;
        }
        byte[] line;
        try {
            line = (JSON.writeValueAsString(parsed) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        synchronized (writing) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                // the client is gone: nothing is left to answer
                log.accept("stdout: " + e.getMessage());
            }
        }
    }

    private void fail(JsonNode message, String why) {
        log.accept(why);
        if (message.has("id") && message.has("method")) {
            emit(error(message.get("id"), -32603, why));
        }
    }

    private static String error(JsonNode id, int code, String text) {
        ObjectNode error = JSON.createObjectNode().put("jsonrpc", "2.0");
        error.set("id", id);
        error.putObject("error").put("code", code).put("message", text);
        return error.toString();
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }

    /** The service no longer knows the session (404): it was restarted. */
    private static final class SessionGone extends IOException {
        SessionGone() {
            super("the MCP session ended on the service");
        }
    }
}

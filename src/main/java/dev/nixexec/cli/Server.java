package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The service's REST API as the command uses it: JSON in and out, every refusal turned into a
 * {@link CommandFailure} whose line is the server's own problem detail. Plain
 * {@link HttpURLConnection}: the JDK's HttpClient sets up TLS even for http://, a third of a
 * client command's time.
 */
final class Server {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final int CONNECT_MS = 5_000;

    final URI base;
    private final Optional<String> key;

    Server(URI base, Optional<String> key) {
        this.base = base;
        this.key = key;
    }

    Optional<String> key() {
        return key;
    }

    JsonNode get(String path) {
        return send("GET", path, null);
    }

    JsonNode post(String path, Object body) {
        return send("POST", path, write(body));
    }

    /** DELETE; an empty answer (204) is a null node. */
    JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    /** A streaming GET: the body of a 2xx answer, which the caller reads and closes. */
    InputStream stream(String path, String accept, Map<String, String> headers) {
        HttpURLConnection connection = open("GET", path, accept);
        headers.forEach(connection::setRequestProperty);
        return body(connection, path);
    }

    URI resolve(String path) {
        String root = base.toString().replaceAll("/+$", "");
        return URI.create(root + path);
    }

    static String query(Map<String, ?> parameters) {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        parameters.forEach((name, value) -> {
            if (value != null) {
                query.add(name + "=" + URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8));
            }
        });
        return query.toString();
    }

    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private JsonNode send(String method, String path, byte[] body) {
        HttpURLConnection connection = open(method, path, "application/json");
        if (body != null) {
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            connection.setFixedLengthStreamingMode(body.length);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            } catch (IOException e) {
                throw failed(e);
            }
        }
        String text;
        try (InputStream in = body(connection, path)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw failed(e);
        }
        if (text.isEmpty()) {
            return JSON.nullNode();
        }
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new CommandFailure(Exit.SERVER_ERROR, base + " answered " + path
                    + " with something that is not JSON: is it a nix-exec server?");
        }
    }

    private HttpURLConnection open(String method, String path, String accept) {
        try {
            HttpURLConnection connection = (HttpURLConnection) resolve(path).toURL().openConnection();
            connection.setRequestMethod(method);
            connection.setConnectTimeout(CONNECT_MS);
            connection.setUseCaches(false);
            connection.setRequestProperty("Accept", accept);
            key.ifPresent(k -> connection.setRequestProperty("Authorization", "Bearer " + k));
            return connection;
        } catch (IOException | IllegalArgumentException e) {
            throw new CommandFailure(Exit.USAGE, "bad server address " + base + ": " + e.getMessage());
        }
    }

    /** The body of a 2xx answer; any other is the refusal it carries. */
    private InputStream body(HttpURLConnection connection, String path) {
        try {
            int status = connection.getResponseCode();
            if (status / 100 == 2) {
                return connection.getInputStream();
            }
            InputStream error = connection.getErrorStream();
            String text = error == null ? "" : new String(error.readAllBytes(), StandardCharsets.UTF_8);
            throw refusal(status, text);
        } catch (IOException e) {
            throw failed(e);
        }
    }

    private CommandFailure failed(IOException e) {
        if (e instanceof ConnectException) {
            return new CommandFailure(Exit.UNREACHABLE, "cannot reach " + base + ": "
                    + Optional.ofNullable(e.getMessage()).filter(m -> !m.isBlank()).orElse("connection refused"));
        }
        if (e instanceof UnknownHostException) {
            return new CommandFailure(Exit.UNREACHABLE, "cannot reach " + base + ": unknown host " + e.getMessage());
        }
        if (e instanceof SocketTimeoutException) {
            return new CommandFailure(Exit.UNREACHABLE, base + " did not answer in time");
        }
        return new CommandFailure(Exit.UNREACHABLE, "the connection to " + base + " failed: " + e.getMessage());
    }
    /** A non-2xx answer as one line: the problem's detail (and its field errors), else the status. */
    static CommandFailure refusal(int status, String body) {
        String message = "the server answered " + status;
        try {
            JsonNode problem = JSON.readTree(body);
            if (problem != null && problem.isObject()) {
                String detail = problem.path("detail").asText(problem.path("title").asText(""));
                StringJoiner errors = new StringJoiner("; ");
                for (Iterator<JsonNode> it = problem.path("errors").elements(); it.hasNext(); ) {
                    JsonNode error = it.next();
                    errors.add(error.path("field").asText() + ": " + error.path("message").asText());
                }
                if (!detail.isBlank() || errors.length() > 0) {
                    message = detail.isBlank() ? errors.toString()
                            : errors.length() == 0 || detail.contains(errors.toString()) ? detail : detail + ": " + errors;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not a problem document: the status says enough
        }
        if (status == 401) {
            message = "the server refused the key (" + message + "): set --key or NIXEXEC_KEY";
        }
        return new CommandFailure(Exit.ofStatus(status), message);
    }

    static byte[] write(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

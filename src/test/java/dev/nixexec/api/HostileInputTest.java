package dev.nixexec.api;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.submit;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzz over every REST endpoint of API.md and over /mcp: malformed and mistyped JSON, huge
 * fields, unicode and NUL in every string, odd Content-Types, abused headers. Every response must
 * be below 500, free of stack-trace text, and a rejected submission must leave no job behind. The
 * seed is printed; {@code -Dfuzz.seed=N} replays a run, {@code -Dfuzz.rounds=N} makes it longer.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class HostileInputTest {


    /** quarkus.http.limits.max-initial-line-length, the default. */
    private static final int MAX_INITIAL_LINE = 4096;

    /** Text that only a leaked exception or stack trace would put in a response. */
    private static final Pattern LEAK = Pattern.compile(
            "\\tat |\\bat [a-z][\\w$]*(\\.[\\w$]+)+\\(|Exception\\b|\\bjava\\.|\\bjavax?\\.|\\bjakarta\\.|com\\.fasterxml|"
                    + "io\\.quarkus|io\\.vertx|org\\.jboss|org\\.hibernate|org\\.postgresql|dev\\.nixexec|SQLState|"
                    + "PSQLException|\\.java:\\d+");

    /** Strings that stress parsers, encoders, PostgreSQL text and Nix alike. */
    private static final List<String> NASTY = List.of("", " ", "\u0000", "a\u0000b", "\uFEFF", "\uD800", "\uDFFF",
            "\uD83D\uDE00", "\u202E", "é", "ｐｙｔｈｏｎ", "\r\n", "\n--bind / /host", "$(id)", "`id`", "${x}",
            "\"; builtins.exec [\"sh\"]; \"", "' OR 1=1 --", "%00", "../../etc/passwd", "\\", "{}", "[]", "null",
            "python\u0000", "9".repeat(40), "-1", "1e999", "NaN", "\u0007\u001b[2J", "<script>");

    @TestHTTPResource("/")
    URL base;

    @Inject
    AgroalDataSource db;

    @Inject
    ObjectMapper json;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private Random random;
    private long seed;
    private String member;
    private String tenantId;
    private String jobId;
    private String workspaceId;
    private final List<String> failures = new ArrayList<>();
    private final Map<String, Map<Integer, Integer>> statuses = new java.util.TreeMap<>();
    private int requests;

    @BeforeEach
    void setUp() {
        seed = Long.getLong("fuzz.seed", System.nanoTime());
        System.out.println("HostileInputTest seed " + seed + " (replay with -Dfuzz.seed=" + seed + ")");
        random = new Random(seed);
        tenantId = tenant("fuzz");
        member = key(tenantId, "member");
        jobId = submit(member, Map.of("language", "bash", "code", "mkdir -p out; echo fuzz > out/a.txt"));
        as(member).get("/v1/jobs/" + jobId + "?wait=60").then().statusCode(200); // its artifact stored
        workspaceId = read(as(member).body(Map.of("name", "fuzz")).post("/v1/workspaces").then().statusCode(201)
                .extract().asString(), "id");
    }

    // ---------------------------------------------------------------------------------------------
    // REST

    @Test
    void restSubmissionsThatAreRejectedStoreNothing() throws Exception {
        int rounds = Integer.getInteger("fuzz.rounds", 300);
        long before = count("jobs");
        List<Long> workspaceRows = workspaceRows();
        int accepted = 0;
        for (int i = 0; i < rounds; i++) {
            String body = random.nextInt(4) == 0 ? malformedJson() : json.writeValueAsString(invalidSubmission());
            String contentType = random.nextInt(5) == 0 ? oddContentType() : "application/json";
            HttpResponse<String> r = send("POST", "/v1/jobs" + (random.nextInt(6) == 0 ? "?wait=" + encode(nasty()) : ""),
                    contentType, body, headers(member));
            if (r.statusCode() / 100 == 2) {
                accepted++;
                failures.add("accepted an invalid submission (" + r.statusCode() + "): " + abbreviate(body));
            }
        }
        assertEquals(before + accepted, count("jobs"), "jobs stored for rejected submissions");
        assertEquals(workspaceRows, workspaceRows(), "workspaces, files, contents or job files stored for rejected submissions");
        report();
    }

    @Test
    void restSubmissionsWithHostileButLegalTextAreStoredWhole() throws Exception {
        long before = count("jobs");
        int accepted = 0;
        for (int i = 0; i < 40; i++) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("language", "bash");
            body.put("code", "exit 0 #" + nasty() + nasty());
            body.put("stdin", nasty());
            body.put("metadata", Map.of(nasty(), nasty(), "n", List.of(nasty(), Map.of("k", nasty()))));
            body.put("env", Map.of("FUZZ", nasty()));
            String text = json.writeValueAsString(body);
            HttpResponse<String> r = send("POST", "/v1/jobs", "application/json", text, headers(member));
            if (r.statusCode() == 201 || r.statusCode() == 200) {
                accepted++;
                // what went on the wire: a lone surrogate cannot be encoded and becomes '?'
                JsonNode sent = json.readTree(text.getBytes(StandardCharsets.UTF_8));
                JsonNode job = json.readTree(r.body());
                HttpResponse<String> read = send("GET", "/v1/jobs/" + job.get("id").asText(), null, null, headers(member));
                JsonNode stored = json.readTree(read.body());
                if (!stored.get("metadata").equals(sent.get("metadata"))) {
                    failures.add("metadata changed on the way: sent " + sent.get("metadata") + " got " + stored.get("metadata"));
                }
            }
        }
        assertEquals(before + accepted, count("jobs"), "every accepted job is stored once, every rejected one not at all");
        report();
    }

    @Test
    void everyRestEndpointSurvivesHostileRequests() throws Exception {
        int rounds = Integer.getInteger("fuzz.rounds", 300);
        long jobsBefore = count("jobs");
        long tenantsBefore = count("tenants");
        long keysBefore = count("api_keys");
        long workspacesBefore = count("workspaces");
        long sessionsBefore = count("ui_sessions");
        int tenantsMade = 0;
        int keysMade = 0;
        int workspacesMade = 0;
        int sessionsMade = 0;
        for (int i = 0; i < rounds; i++) {
            String id = switch (random.nextInt(4)) {
                case 0 -> jobId;
                case 1 -> UUID.randomUUID().toString();
                case 2 -> encode(nasty());
                default -> encode(jobId + nasty());
            };
            String key = switch (random.nextInt(6)) {
                case 0 -> ADMIN;
                case 1 -> "nx_" + nasty();
                case 2 -> "x".repeat(10_000);
                default -> member;
            };
            Map<String, List<String>> headers = headers(key);
            String q = encode(nasty());
            String ws = switch (random.nextInt(3)) {
                case 0 -> workspaceId;
                case 1 -> "fuzz";
                default -> id;
            };
            HttpResponse<String> r = switch (random.nextInt(18)) {
                case 0 -> send("GET", "/v1/jobs/" + id + "?wait=" + q, null, null, headers);
                case 1 -> {
                    headers.put("Last-Event-ID", List.of(random.nextBoolean() ? "-1" : "9".repeat(30)));
                    yield send("GET", "/v1/jobs/" + id + "/events", null, null, headers);
                }
                case 2 -> send("POST", "/v1/jobs/" + id + "/cancel", oddContentType(), malformedJson(), headers);
                case 3 -> send("GET", "/v1/jobs?status=" + q + "&language=" + q + "&since=" + q + "&until=" + q
                        + "&limit=" + q + "&cursor=" + q, null, null, headers);
                case 4 -> send("GET", "/v1/languages?" + q + "=" + q, null, null, headers);
                case 5 -> send("GET", "/v1/audit?job_id=" + q + "&since=" + q + "&limit=" + q + "&cursor=" + q, null, null,
                        headers);
                case 6 -> send("GET", "/v1/nodes", null, null, headers);
                case 7 -> send("POST", "/v1/admin/tenants", random.nextInt(4) == 0 ? oddContentType() : "application/json",
                        random.nextBoolean() ? malformedJson() : json.writeValueAsString(Map.of("name", nasty() + "\u0000",
                                "policy", random.nextBoolean() ? nasty() : Map.of(nasty(), nasty()))), headers);
                case 8 -> send("POST", "/v1/admin/tenants/" + (random.nextBoolean() ? tenantId : id) + "/keys",
                        "application/json", random.nextBoolean() ? malformedJson()
                                : json.writeValueAsString(Map.of("role", nasty())), headers);
                case 9 -> send("DELETE", "/v1/admin/keys/" + id, null, null, headers);
                case 10 -> send(random.nextBoolean() ? "PUT" : "PATCH", "/v1/jobs/" + id, "application/json", "{}", headers);
                case 11 -> send("POST", "/v1/workspaces", random.nextInt(4) == 0 ? oddContentType() : "application/json",
                        random.nextBoolean() ? malformedJson() : json.writeValueAsString(workspaceBody()), headers);
                case 12 -> send("GET", "/v1/workspaces" + switch (random.nextInt(3)) {
                    case 0 -> "?" + q + "=" + q;
                    case 1 -> "/" + ws;
                    default -> "/" + ws + "/files?" + q + "=" + q;
                }, null, null, headers);
                case 13 -> send("PUT", "/v1/workspaces/" + ws + "/files/" + hostilePath(), random.nextInt(3) == 0
                        ? oddContentType() : "application/octet-stream", random.nextBoolean() ? nasty() : malformedJson(), headers);
                case 14 -> send(random.nextBoolean() ? "GET" : "DELETE", "/v1/workspaces/" + ws + "/files/" + hostilePath(),
                        null, null, headers);
                case 15 -> send("DELETE", "/v1/workspaces/" + (random.nextBoolean() ? id : encode(nasty()) + "x"), null, null,
                        headers);
                case 16 -> send("GET", "/v1/jobs/" + (random.nextBoolean() ? jobId : id) + "/artifacts/"
                        + (random.nextInt(3) == 0 ? "out/a.txt" : hostilePath()), null, null, headers);
                default -> {
                    // the sign-in form: hostile key, CSRF token, login cookie and Origin (only a real key with a
                    // matching token and cookie may start a session)
                    String csrf = random.nextBoolean() ? "t" + random.nextInt(3) : nasty();
                    Map<String, List<String>> form = new LinkedHashMap<>();
                    form.put("Cookie", List.of("nx_ui_login=" + (random.nextBoolean() ? csrf : nasty())));
                    if (random.nextBoolean()) {
                        form.put("Origin", List.of(random.nextBoolean() ? base.toString().replaceAll("/$", "") : nasty()));
                    }
                    String body = random.nextInt(4) == 0 ? malformedJson()
                            : "key=" + encode(random.nextBoolean() ? key : nasty()) + "&csrf=" + encode(csrf)
                                    + (random.nextBoolean() ? "&" + encode(nasty()) + "=" + encode(nasty()) : "");
                    yield send(random.nextInt(5) == 0 ? "GET" : "POST", "/ui/login", random.nextInt(4) == 0 ? oddContentType()
                            : "application/x-www-form-urlencoded", body, form);
                }
            };
            if (r.statusCode() == 201 && r.uri().getPath().equals("/v1/admin/tenants")) {
                tenantsMade++;
            }
            if (r.statusCode() == 201 && r.uri().getPath().endsWith("/keys")) {
                keysMade++;
            }
            if (r.statusCode() == 201 && r.uri().getPath().equals("/v1/workspaces")) {
                workspacesMade++;
            }
            if (r.statusCode() == 303 && r.uri().getPath().equals("/ui/login")) {
                sessionsMade++;
            }
        }
        assertEquals(jobsBefore, count("jobs"), "a job was stored");
        assertEquals(workspacesBefore + workspacesMade, count("workspaces"), "workspaces other than the ones a 201 reported");
        assertEquals(sessionsBefore + sessionsMade, count("ui_sessions"), "UI sessions other than the sign-ins that succeeded");
        assertWorkspacesWhole();
        assertEquals(tenantsBefore + tenantsMade, count("tenants"));
        assertEquals(keysBefore + keysMade, count("api_keys"));
        report();
    }

    @Test
    void abusedHeadersAreRefusedCleanly() throws Exception {
        long before = count("jobs");
        String valid = "{\"language\":\"bash\",\"code\":\"echo hi\"}";
        // duplicated Authorization: two keys of different tenants (or a good and a bad one) must not be merged or guessed
        Map<String, List<String>> twoKeys = new LinkedHashMap<>();
        twoKeys.put("Authorization", List.of("Bearer " + member, "Bearer nx_not_a_key"));
        HttpResponse<String> dup = send("POST", "/v1/jobs", "application/json", valid, twoKeys);
        // JAX-RS joins repeated headers with ',', which is no key: refused whatever the order
        assertEquals(401, dup.statusCode(), "two Authorization headers: " + dup.body());
        twoKeys.put("Authorization", List.of("Bearer nx_not_a_key", "Bearer " + member));
        assertEquals(401, send("POST", "/v1/jobs", "application/json", valid, twoKeys).statusCode(), "bad key, then a good one");
        twoKeys.put("Authorization", List.of("Bearer " + member, "Bearer " + member));
        assertEquals(401, send("POST", "/v1/jobs", "application/json", valid, twoKeys).statusCode(), "the good key twice");
        Map<String, List<String>> wrongScheme = Map.of("Authorization", List.of("Basic " + member));
        assertEquals(401, send("GET", "/v1/languages", null, null, wrongScheme).statusCode());
        Map<String, List<String>> empty = Map.of("Authorization", List.of("Bearer "));
        assertEquals(401, send("GET", "/v1/languages", null, null, empty).statusCode());
        // Idempotency-Key: too long, blank, odd characters
        for (String idem : List.of("k".repeat(201), " ", "\t", "é\u202E", "a,b", "x".repeat(7000))) {
            Map<String, List<String>> h = headers(member);
            h.put("Idempotency-Key", List.of(idem));
            HttpResponse<String> r = send("POST", "/v1/jobs", "application/json", valid, h);
            if (idem.length() > 200) {
                assertEquals(400, r.statusCode(), "Idempotency-Key '" + abbreviate(idem) + "': " + r.body());
            }
            // a blank value arrives trimmed to nothing, which is no key at all: accepted like a plain submission
            if (r.statusCode() / 100 == 2) {
                before++;
            }
        }
        // a header block far beyond any limit, many headers, a huge URL
        Map<String, List<String>> huge = headers(member);
        huge.put("X-Fuzz", List.of("h".repeat(64 * 1024)));
        assertEquals(431, send("GET", "/v1/languages", null, null, huge).statusCode(), "a 64 KiB header");
        Map<String, List<String>> many = headers(member);
        for (int i = 0; i < 500; i++) {
            many.put("X-Fuzz-" + i, List.of("v"));
        }
        assertEquals(200, send("GET", "/v1/languages", null, null, many).statusCode(), "500 small headers");
        assertTrue(send("GET", "/v1/jobs?cursor=" + "c".repeat(20_000), null, null, headers(member)).statusCode() < 500);
        // a body larger than any accepted one: the server must refuse it before it fills memory
        String big = "{\"language\":\"bash\",\"code\":\"" + "#".repeat(20 << 20) + "\"}";
        HttpResponse<String> bigResponse = send("POST", "/v1/jobs", "application/json", big, headers(member));
        assertTrue(bigResponse.statusCode() == 413, "20 MiB body: " + bigResponse.statusCode());
        // raw bytes no client library would send: NUL and CR/LF in header values, a lying Content-Length
        for (String raw : List.of(
                "GET /v1/languages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + member + "\u0000admin\r\n\r\n",
                "GET /v1/languages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n " + member + "\r\n\r\n",
                "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + member
                        + "\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n" + valid,
                "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + member
                        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
                "GET /v1/jobs/%00 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + member + "\r\n\r\n",
                "GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")) {
            String response = raw(raw);
            check("raw " + abbreviate(raw), statusOf(response), response.contains("\r\n\r\n")
                    ? response.substring(response.indexOf("\r\n\r\n")) : response);
        }
        assertEquals(before, count("jobs"), "a job was stored from a rejected request");
        report();
    }

    // ---------------------------------------------------------------------------------------------
    // MCP

    @Test
    void mcpSurvivesMalformedJsonRpcAndOversizedArguments() throws Exception {
        int rounds = Integer.getInteger("fuzz.rounds", 300) / 2;
        long before = count("jobs");
        String session = mcpSession();
        List<String> tools = List.of("run_code", "submit_job", "get_job", "cancel_job", "list_jobs", "list_languages",
                "list_workspace_files", "read_workspace_file", "write_workspace_file", "list_profiles", "search_packages",
                "create_session", "exec_in_session", "list_sessions", "destroy_session", "no_such_tool");
        for (int i = 0; i < rounds; i++) {
            Map<String, List<String>> headers = headers(member);
            headers.put("Accept", List.of("application/json, text/event-stream"));
            if (random.nextInt(5) != 0) {
                headers.put("Mcp-Session-Id", List.of(random.nextInt(10) == 0 ? nasty() + "x" : session));
            }
            String body = switch (random.nextInt(6)) {
                case 0 -> malformedJson();
                case 1 -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("jsonrpc", random.nextBoolean() ? "2.0" : nasty());
                    m.put("id", randomValue());
                    m.put("method", random.nextBoolean() ? nasty() : "tools/" + nasty());
                    m.put("params", randomValue());
                    yield json.writeValueAsString(m);
                }
                case 2 -> "[" + json.writeValueAsString(rpc("tools/list", Map.of())) + "," + malformedJson() + "]";
                default -> {
                    // a tool call whose language is never valid, so no job may come of it
                    Map<String, Object> args = new LinkedHashMap<>();
                    args.put("language", "fuzz-" + nasty());
                    args.put("code", random.nextInt(4) == 0 ? "#".repeat(2 << 20) : nasty());
                    args.put("packages", random.nextBoolean() ? List.of(nasty()) : nasty());
                    args.put("env", random.nextBoolean() ? Map.of(nasty(), nasty()) : List.of(1));
                    args.put("stdin", random.nextBoolean() ? nasty() : randomValue());
                    args.put("timeout", randomValue());
                    args.put("job_id", random.nextBoolean() ? nasty() : UUID.randomUUID().toString());
                    args.put("wait", randomValue());
                    args.put("limit", randomValue());
                    args.put("status", nasty());
                    args.put("path", random.nextBoolean() ? nasty() : random.nextBoolean() ? "../" + nasty() : randomValue());
                    args.put("content", random.nextInt(4) == 0 ? "#".repeat(2 << 20) : random.nextBoolean() ? nasty() : randomValue());
                    args.put("encoding", random.nextBoolean() ? "base64" : randomValue());
                    args.put("workspace", random.nextBoolean() ? workspaceId : random.nextBoolean() ? nasty() : randomValue());
                    args.put("session", random.nextBoolean() ? nasty() : randomValue());
                    args.put("profile", random.nextBoolean() ? "strict" : nasty());
                    args.put("query", random.nextBoolean() ? nasty() : randomValue());
                    args.put("command", random.nextBoolean() ? List.of(nasty()) : randomValue());
                    if (random.nextInt(3) == 0) {
                        args.remove(List.of("path", "content", "encoding", "workspace").get(random.nextInt(4)));
                    }
                    String tool = tools.get(random.nextInt(tools.size()));
                    if (tool.equals("get_job") || tool.equals("cancel_job") || tool.equals("list_jobs")
                            || tool.equals("list_languages")) {
                        args.remove("wait"); // a long poll is not what this test is about
                    }
                    yield json.writeValueAsString(rpc("tools/call", Map.of("name", tool, "arguments", args)));
                }
            };
            send("POST", "/mcp", random.nextInt(8) == 0 ? oddContentType() : "application/json", body, headers);
        }
        assertEquals(before, count("jobs"), "a job was stored from a rejected MCP call");
        assertWorkspacesWhole();
        report();
    }

    /** Each of these got a 500 (with a stack trace in test mode) or a dropped connection before McpBodyGuard. */
    @Test
    void mcpBodiesTheExtensionCouldNotTakeGetJsonRpcErrors() throws Exception {
        String session = mcpSession();
        Map<String, List<String>> headers = headers(member);
        headers.put("Accept", List.of("application/json, text/event-stream"));
        headers.put("Mcp-Session-Id", List.of(session));
        Map<String, String> bodies = new LinkedHashMap<>();
        bodies.put("\"just a string\"", "application/json");
        bodies.put("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"},12]", "application/json");
        bodies.put("[".repeat(5000) + "]".repeat(5000), "application/json");
        bodies.put("code=" + "#".repeat(2 << 20), "application/x-www-form-urlencoded");
        bodies.put("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"} {}", "application/json");
        for (Map.Entry<String, String> b : bodies.entrySet()) {
            HttpResponse<String> r = send("POST", "/mcp", b.getValue(), b.getKey(), headers);
            assertTrue(r.statusCode() == 400 || r.statusCode() == 415, abbreviate(b.getKey()) + ": " + r.statusCode());
            JsonNode error = json.readTree(r.body()).get("error");
            assertTrue(error != null && error.get("code").asInt() <= -32600, r.body());
        }
        // the guard stands behind authentication: no key is still a 401, whatever the body
        assertEquals(401, send("POST", "/mcp", "application/json", "\"just a string\"", Map.of()).statusCode());
        report();
    }

    private String mcpSession() throws Exception {
        Map<String, List<String>> headers = headers(member);
        headers.put("Accept", List.of("application/json, text/event-stream"));
        HttpResponse<String> init = send("POST", "/mcp", "application/json", json.writeValueAsString(rpc("initialize",
                Map.of("protocolVersion", "2025-03-26", "capabilities", Map.of(),
                        "clientInfo", Map.of("name", "fuzz", "version", "1")))), headers);
        assertEquals(200, init.statusCode(), init.body());
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        headers.put("Mcp-Session-Id", List.of(session));
        send("POST", "/mcp", "application/json", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", headers);
        return session;
    }

    private Map<String, Object> rpc(String method, Object params) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jsonrpc", "2.0");
        m.put("id", random.nextInt(1000));
        m.put("method", method);
        m.put("params", params);
        return m;
    }

    // ---------------------------------------------------------------------------------------------
    // generators

    private String nasty() {
        String s = NASTY.get(random.nextInt(NASTY.size()));
        return switch (random.nextInt(8)) {
            case 0 -> s.repeat(1 + random.nextInt(2000));
            case 1 -> s + randomUnicode(1 + random.nextInt(50));
            default -> s;
        };
    }

    private String randomUnicode(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int cp = switch (random.nextInt(4)) {
                case 0 -> random.nextInt(0x20);
                case 1 -> 0x80 + random.nextInt(0x780);
                case 2 -> 0x1F300 + random.nextInt(0x300);
                default -> 0x20 + random.nextInt(0x5f);
            };
            b.appendCodePoint(cp);
        }
        return b.toString();
    }

    private Object randomValue() {
        return switch (random.nextInt(9)) {
            case 0 -> null;
            case 1 -> random.nextBoolean();
            case 2 -> random.nextLong();
            case 3 -> random.nextDouble() * 1e300;
            case 4 -> List.of(nasty(), random.nextInt());
            case 5 -> Map.of(nasty(), List.of(Map.of("deep", nasty())));
            case 6 -> -random.nextInt(1000);
            default -> nasty();
        };
    }

    /** A workspace creation with hostile or mistyped fields. */
    private Map<String, Object> workspaceBody() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", random.nextBoolean() ? nasty() : randomValue());
        if (random.nextBoolean()) {
            body.put("quota_bytes", randomValue());
        }
        if (random.nextBoolean()) {
            body.put("quota_files", randomValue());
        }
        return body;
    }

    /** A file path for a URL: traversal, absolute, NUL, unicode, huge, or an ordinary one (encoded or not). */
    private String hostilePath() {
        return switch (random.nextInt(6)) {
            case 0 -> "a/" + encode(nasty());
            case 1 -> encode("../" + nasty());
            case 2 -> "..%2F..%2Fetc%2Fpasswd";
            case 3 -> encode(nasty()) + "/" + encode(nasty());
            case 4 -> "in.txt";
            default -> encode(nasty());
        };
    }

    /** A submission with at least one field that makes it invalid, the rest random. */
    private Map<String, Object> invalidSubmission() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("language", random.nextBoolean() ? "bash" : randomValue());
        body.put("code", random.nextInt(8) == 0 ? "#".repeat(2 << 20) : random.nextBoolean() ? "echo hi" : randomValue());
        body.put("packages", random.nextBoolean() ? List.of(nasty(), "jq") : randomValue());
        body.put("env", random.nextBoolean() ? Map.of(nasty(), nasty()) : randomValue());
        body.put("stdin", random.nextBoolean() ? nasty() : randomValue());
        body.put("timeout", randomValue());
        body.put("network", random.nextBoolean() ? nasty() : randomValue());
        body.put("metadata", randomValue());
        if (random.nextBoolean()) {
            body.put("workspace", random.nextBoolean() ? workspaceId : random.nextBoolean() ? nasty() : randomValue());
        }
        if (random.nextBoolean()) {
            Map<String, Object> file = new LinkedHashMap<>();
            file.put("path", random.nextBoolean() ? nasty() : random.nextBoolean() ? "in.txt" : randomValue());
            file.put("content", random.nextInt(8) == 0 ? "x".repeat(2 << 20) : random.nextBoolean() ? nasty() : randomValue());
            if (random.nextBoolean()) {
                file.put("encoding", random.nextBoolean() ? "base64" : nasty());
            }
            body.put("files", random.nextInt(4) == 0 ? randomValue() : List.of(file, file));
        }
        if (random.nextBoolean()) {
            body.put("artifacts", random.nextBoolean() ? List.of(nasty(), "../" + nasty()) : randomValue());
        }
        if (random.nextInt(4) == 0) {
            body.put(nasty() + "_unknown", randomValue());
        }
        // the one field that is certainly wrong
        switch (random.nextInt(5)) {
            case 0 -> body.put("language", "fuzz-" + nasty());
            case 1 -> body.put("packages", List.of("jq", "bad name " + nasty()));
            case 2 -> body.put("env", Map.of("LD_PRELOAD", nasty()));
            case 3 -> body.put("timeout", "forever" + nasty());
            default -> body.put("network", "maybe" + nasty());
        }
        return body;
    }

    private String malformedJson() {
        List<String> shapes = List.of("", "{", "}", "[", "{\"language\":", "{\"language\":\"bash\",}", "{'a':1}",
                "{\"a\":1}{\"b\":2}", "nul", "\u0000", "\uFEFF{}", "{\"code\":\"\\ud800\"}", "{\"code\":\"\\u0000\"}",
                "{\"language\":\"bash\",\"code\":\"echo\",\"language\":\"python\"}", "[".repeat(5000) + "]".repeat(5000),
                "{\"a\":" + "1".repeat(100_000) + "}", "{\"timeout\":1e999999}", "{\"env\":{\"A\":{\"B\":[]}}}",
                "\"just a string\"", "12", "true", "{\"language\":\"bash\",\"code\":\"echo\"" + ",\"x\":1".repeat(10_000) + "}");
        String s = shapes.get(random.nextInt(shapes.size()));
        if (random.nextInt(4) == 0 && !s.isEmpty()) {
            char[] chars = s.toCharArray();
            chars[random.nextInt(chars.length)] = (char) random.nextInt(0x80);
            s = new String(chars);
        }
        return s;
    }

    private String oddContentType() {
        List<String> types = List.of("text/plain", "application/xml", "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/json; charset=nope",
                "application/json;;;", "*/*", "application/", "", "\u00e9/\u00e9", "application/problem+json",
                "application/json-patch+json", "application/json; charset=iso-8859-1");
        return types.get(random.nextInt(types.size()));
    }

    private Map<String, List<String>> headers(String key) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("Authorization", List.of("Bearer " + key));
        return h;
    }

    // ---------------------------------------------------------------------------------------------
    // transport and checks

    private HttpResponse<String> send(String method, String path, String contentType, String body,
            Map<String, List<String>> headers) throws Exception {
        requests++;
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + path));
        } catch (IllegalArgumentException unencodable) {
            b = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + "/v1/jobs/" + encode(path)));
        }
        b.timeout(Duration.ofSeconds(60));
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            for (String v : h.getValue()) {
                try {
                    b.header(h.getKey(), v);
                } catch (IllegalArgumentException notSendable) {
                    b.header(h.getKey(), encode(v));
                }
            }
        }
        if (contentType != null && !contentType.isEmpty()) {
            try {
                b.header("Content-Type", contentType);
            } catch (IllegalArgumentException notSendable) {
                b.header("Content-Type", "application/octet-stream");
            }
        }
        // as bytes: a lone surrogate becomes '?' here rather than tripping the client's own encoder
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body.getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> r;
        if (path.endsWith("/events") && !path.contains("%")) {
            // a stream: read only its head
            HttpResponse<InputStream> s = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            byte[] head;
            try (InputStream in = s.body()) {
                head = in.readNBytes(s.statusCode() == 200 ? 64 : 1 << 16);
            }
            check(method + " " + path, s.statusCode(), new String(head, StandardCharsets.UTF_8));
            return new StatusOnly(s);
        }
        try {
            r = sendOnLiveConnection(b.build());
        } catch (java.io.IOException closed) {
            if (path.length() > MAX_INITIAL_LINE) {
                // Vert.x closes the connection on a request line beyond its limit: a refusal, not a crash
                return new StatusOnly(null);
            }
            failures.add("no response (" + closed.getMessage() + ") for " + method + " " + abbreviate(path) + " "
                    + abbreviate(body == null ? "" : body) + " headers " + abbreviate(headers.toString()));
            return new StatusOnly(null);
        }
        check(method + " " + abbreviate(path) + " " + abbreviate(body == null ? "" : body), r.statusCode(), r.body());
        statuses.computeIfAbsent(method + " " + route(path), k -> new java.util.TreeMap<>()).merge(r.statusCode(), 1, Integer::sum);
        return r;
    }

    /**
     * The client pools connections and does not retry a POST on one the server had already closed
     * (after refusing an earlier request without reading its body); such a send fails with no bytes
     * received, before this request ever reached the server. One more try on a fresh connection
     * tells that apart from a server that really drops this request.
     */
    private HttpResponse<String> sendOnLiveConnection(HttpRequest request) throws java.io.IOException, InterruptedException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException stale) {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    private void check(String what, int status, String body) {
        if (status >= 500) {
            failures.add(status + " for " + what + ": " + abbreviate(body));
        }
        if (body != null && LEAK.matcher(body).find()) {
            failures.add("internals in the response to " + what + ": " + abbreviate(body));
        }
    }

    /** The route of a path, so the report shows which endpoints the fuzz reached and how they answered. */
    private static String route(String path) {
        return path.replaceFirst("\\?.*", "")
                .replaceFirst("^/v1/jobs/[^/]+/artifacts/.*", "/v1/jobs/{id}/artifacts/{path}")
                .replaceFirst("^/v1/workspaces/[^/]+/files/.*", "/v1/workspaces/{id}/files/{path}")
                .replaceFirst("^/v1/workspaces/[^/]+", "/v1/workspaces/{id}")
                .replaceFirst("^/v1/jobs/[^/]+", "/v1/jobs/{id}")
                .replaceFirst("^/v1/admin/tenants/[^/]+", "/v1/admin/tenants/{id}")
                .replaceFirst("^/v1/admin/keys/[^/]+", "/v1/admin/keys/{id}");
    }

    private void report() {
        System.out.println("HostileInputTest seed " + seed + ": " + requests + " requests, " + failures.size() + " failures");
        statuses.forEach((route, counts) -> System.out.println("HostileInputTest statuses " + route + " " + counts));
        failures.forEach(f -> System.out.println("HostileInputTest failure: " + f));
        if (!failures.isEmpty()) {
            fail("seed " + seed + ", " + failures.size() + " failures, first ones:\n"
                    + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        }
    }

    /** Rows of every table a submission or a workspace call may write, in a fixed order. */
    private List<Long> workspaceRows() throws Exception {
        List<Long> rows = new ArrayList<>();
        for (String table : List.of("workspaces", "workspace_files", "workspace_blobs", "workspace_versions", "job_files")) {
            rows.add(count(table));
        }
        return rows;
    }

    /**
     * Nothing half-stored in any workspace: each file has its content (of its size), each
     * workspace's version has its version record.
     */
    private void assertWorkspacesWhole() throws Exception {
        assertEquals(0, query("SELECT count(*) FROM workspace_files f LEFT JOIN workspace_blobs b "
                + "ON b.tenant_id = f.tenant_id AND b.sha256 = f.sha256 WHERE b.sha256 IS NULL OR b.size <> f.size"),
                "workspace files without their content");
        assertEquals(0, query("SELECT count(*) FROM workspaces w WHERE w.version > 0 AND NOT EXISTS "
                + "(SELECT 1 FROM workspace_versions v WHERE v.workspace_id = w.id AND v.version = w.version)"),
                "workspaces at a version nothing recorded");
    }

    private long query(String sql) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long count(String table) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String raw(String request) throws Exception {
        requests++;
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            socket.shutdownOutput();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            try {
                socket.getInputStream().transferTo(all);
            } catch (java.net.SocketTimeoutException slow) {
                // keep-alive: what arrived is the answer
            }
            return all.toString(StandardCharsets.UTF_8);
        }
    }

    private static int statusOf(String response) {
        if (!response.startsWith("HTTP/1.1 ")) {
            return response.isEmpty() ? 400 : 999; // a closed connection is a refusal; anything else is odd
        }
        return Integer.parseInt(response.substring(9, 12));
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String abbreviate(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> {
            if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        String flat = b.toString();
        return flat.length() > 200 ? flat.substring(0, 200) + "…(" + flat.length() + ")" : flat;
    }

    /** The status of a streamed response whose head was already checked. */
    private record StatusOnly(HttpResponse<InputStream> response) implements HttpResponse<String> {
        public int statusCode() {
            return response == null ? 0 : response.statusCode();
        }

        public HttpRequest request() {
            return response.request();
        }

        public java.util.Optional<HttpResponse<String>> previousResponse() {
            return java.util.Optional.empty();
        }

        public java.net.http.HttpHeaders headers() {
            return response.headers();
        }

        public String body() {
            return "";
        }

        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
            return response.sslSession();
        }

        public URI uri() {
            return response == null ? URI.create("/") : response.uri();
        }

        public HttpClient.Version version() {
            return response.version();
        }
    }
}

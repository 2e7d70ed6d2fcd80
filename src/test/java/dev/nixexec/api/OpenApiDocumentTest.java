package dev.nixexec.api;

import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.JobStatus;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.ws.rs.HttpMethod;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * /q/openapi against the resources themselves: every /v1 method is there with its verb and path,
 * creations say 201, secured operations their problem responses, enums are the service's own
 * lists, no generated schema names; and a standard validator (swagger-parser) accepts the document.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class OpenApiDocumentTest {

    /** The operations that create something answer 201 (some also 200 for an existing or finished one). */
    private static final List<String> CREATIONS = List.of("post /v1/jobs", "post /v1/jobs/batch", "post /v1/jobs/{id}/rerun",
            "post /v1/sessions", "post /v1/sessions/{id}/exec", "post /v1/workspaces", "post /v1/environments",
            "put /v1/profiles/{name}", "post /v1/admin/tenants", "post /v1/admin/tenants/{id}/keys",
            "post /v1/admin/tenants/{id}/webhook-secret");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> document() {
        return given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .extract().as(Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, String... keys) {
        Object current = value;
        for (String key : keys) {
            current = current instanceof Map<?, ?> m ? m.get(key) : null;
        }
        return current == null ? Map.of() : (Map<String, Object>) current;
    }

    /** "METHOD /path" of every JAX-RS resource method under /v1, read from the compiled classes. */
    static TreeSet<String> resourceOperations() throws IOException, URISyntaxException {
        TreeSet<String> operations = new TreeSet<>();
        resourceMethods().forEach((method, operation) -> operations.add(operation));
        return operations;
    }

    /** Every JAX-RS resource method under /v1, with its "METHOD /path", read from the compiled classes. */
    private static Map<Method, String> resourceMethods() throws IOException, URISyntaxException {
        Path classes = Path.of(JobsResource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<Method, String> methods = new java.util.LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/nixexec"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, JobsResource.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                jakarta.ws.rs.Path root = type.getAnnotation(jakarta.ws.rs.Path.class);
                if (root == null) {
                    continue;
                }
                for (Method method : type.getDeclaredMethods()) {
                    String verb = Arrays.stream(method.getAnnotations()).map(Annotation::annotationType)
                            .map(a -> a.getAnnotation(HttpMethod.class)).filter(h -> h != null)
                            .map(HttpMethod::value).findFirst().orElse(null);
                    if (verb == null) {
                        continue;
                    }
                    jakarta.ws.rs.Path sub = method.getAnnotation(jakarta.ws.rs.Path.class);
                    String path = ("/" + root.value() + "/" + (sub == null ? "" : sub.value()))
                            .replaceAll("\\{\\s*(\\w+)\\s*:[^}]*}", "{$1}").replaceAll("/+", "/").replaceAll("(.)/$", "$1");
                    if (path.startsWith("/v1/")) {
                        methods.put(method, verb.toLowerCase(Locale.ROOT) + " " + path);
                    }
                }
            }
        }
        return methods;
    }

    @Test
    void everyResourceMethodIsDocumentedWithItsVerbAndPath() throws Exception {
        Map<String, Object> paths = map(document(), "paths");
        TreeSet<String> resources = resourceOperations();
        assertTrue(resources.contains("post /v1/jobs") && resources.contains("get /v1/jobs/{id}/artifacts/{path}")
                && resources.contains("delete /v1/admin/keys/{id}"), "the resources were found: " + resources);
        List<String> missing = resources.stream().filter(op -> {
            String[] parts = op.split(" ", 2);
            return map(paths, parts[1]).get(parts[0]) == null;
        }).toList();
        assertEquals(List.of(), missing, "resource methods missing from /q/openapi");
    }

    /** A reader of /q/openapi (Swagger UI, a generated client) meets each operation by its summary, under its resource. */
    @Test
    @SuppressWarnings("unchecked")
    void everyOperationHasASummaryADescriptionAndItsResourceAsTag() throws Exception {
        Map<String, Object> document = document();
        Map<String, Object> paths = map(document, "paths");
        List<String> declared = ((List<Map<String, Object>>) document.getOrDefault("tags", List.of())).stream()
                .filter(tag -> tag.get("description") instanceof String d && !d.isBlank())
                .map(tag -> (String) tag.get("name")).toList();
        List<String> problems = new ArrayList<>();
        java.util.Set<String> summaries = new java.util.HashSet<>();
        for (String op : resourceOperations()) {
            String[] parts = op.split(" ", 2);
            Map<String, Object> operation = map(paths, parts[1], parts[0]);
            if (!(operation.get("summary") instanceof String summary) || summary.isBlank()) {
                problems.add(op + ": no summary");
            } else if (!summaries.add(summary) && !parts[1].endsWith("/events")) {
                problems.add(op + ": summary '" + summary + "' is another operation's too");
            }
            if (!(operation.get("description") instanceof String description) || description.length() < 20) {
                problems.add(op + ": no description");
            }
            List<String> tags = (List<String>) operation.getOrDefault("tags", List.of());
            if (tags.size() != 1 || tags.get(0).contains("Resource") || !declared.contains(tags.get(0))) {
                problems.add(op + ": tags " + tags + ", not one resource declared with a description in " + declared);
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(List.of("Jobs"), map(paths, "/v1/jobs", "post").get("tags"));
        assertEquals(List.of("Sessions"), map(paths, "/v1/sessions/{id}/exec", "post").get("tags"));
    }

    @Test
    void creationsSay201CancelSays202AndDeletesSay204() throws Exception {
        Map<String, Object> paths = map(document(), "paths");
        for (String op : CREATIONS) {
            String[] parts = op.split(" ", 2);
            Map<String, Object> responses = map(paths, parts[1], parts[0], "responses");
            assertTrue(responses.containsKey("201"), op + " declares 201: " + responses.keySet());
            assertFalse(map(responses, "201", "content").isEmpty(), op + "'s 201 has a body schema");
        }
        assertTrue(map(paths, "/v1/jobs/{id}/cancel", "post", "responses").containsKey("202"));
        assertFalse(map(paths, "/v1/jobs/{id}/cancel", "post", "responses").containsKey("200"));
        for (String op : resourceOperations()) {
            if (op.startsWith("delete ")) {
                Map<String, Object> responses = map(paths, op.substring(7), "delete", "responses");
                assertTrue(responses.containsKey("204") && !responses.containsKey("200"), op + ": " + responses.keySet());
            }
        }
    }

    @Test
    void everySecuredOperationDeclaresItsProblemResponses() {
        Map<String, Object> paths = map(document(), "paths");
        List<String> lacking = new ArrayList<>();
        paths.forEach((path, item) -> map(item).forEach((method, operation) -> {
            if (!path.startsWith("/v1/") || !(map(operation).get("security") instanceof List<?> security) || security.isEmpty()) {
                return;
            }
            Map<String, Object> responses = map(operation, "responses");
            for (String status : List.of("401", "403", "429")) {
                Map<String, Object> problem = map(responses, status, "content", "application/problem+json", "schema");
                if (!"#/components/schemas/Problem".equals(problem.get("$ref"))) {
                    lacking.add(method + " " + path + " " + status);
                }
            }
            if (path.contains("{") && !responses.containsKey("404")) {
                lacking.add(method + " " + path + " 404");
            }
            if (map(operation).containsKey("requestBody") && !(responses.containsKey("400") && responses.containsKey("413"))) {
                lacking.add(method + " " + path + " 400/413");
            }
        }));
        assertEquals(List.of(), lacking, "secured operations without their problem+json responses");
        Map<String, Object> submit = map(paths, "/v1/jobs", "post", "responses");
        assertTrue(submit.containsKey("415"), "a JSON body can be refused with 415");
        assertTrue(submit.containsKey("409") && submit.containsKey("503"), "an idempotency key reused, a full queue: " + submit.keySet());
        assertFalse(map(submit, "200", "content").isEmpty(), "a job finished within ?wait answers 200 with it");
        assertTrue(map(paths, "/v1/admin/tenants", "post", "responses").containsKey("409"), "a tenant name taken");
        Map<String, Object> problem = map(document(), "components", "schemas", "Problem", "properties");
        assertEquals(new TreeSet<>(List.of("type", "title", "status", "detail", "errors")), new TreeSet<>(problem.keySet()));
        assertEquals(new TreeSet<>(List.of("field", "message")),
                new TreeSet<>(map(document(), "components", "schemas", "FieldProblem", "properties").keySet()));
    }

    @Test
    void schemasHaveRealNamesConcreteTypesEnumsAndRequiredFields() {
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body(org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("JsonNode")));
        Map<String, Object> document = document();
        Map<String, Object> schemas = map(document, "components", "schemas");
        Pattern generated = Pattern.compile(".*\\d$|.*JsonNode.*");
        assertEquals(List.of(), schemas.keySet().stream().filter(n -> generated.matcher(n).matches()).toList(),
                "generated schema names");
        List<String> languages = Language.ids();
        List<String> statuses = Arrays.stream(JobStatus.values()).map(JobStatus::id).toList();
        assertEquals(languages, map(schemas, "SubmitBody", "properties", "language").get("enum"));
        assertEquals(languages, map(schemas, "JobView", "properties", "language").get("enum"));
        assertEquals(statuses, map(schemas, "JobView", "properties", "status").get("enum"));
        assertEquals(List.of("off", "full"), map(schemas, "SubmitBody", "properties", "network").get("enum"));
        @SuppressWarnings("unchecked")
        List<Object> required = (List<Object>) map(schemas, "SubmitBody").get("required");
        assertTrue(required != null && required.containsAll(List.of("language", "code")), "submit requires: " + required);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> listParameters = (List<Map<String, Object>>) map(document, "paths", "/v1/jobs", "get")
                .get("parameters");
        Map<String, Object> statusParameter = listParameters.stream().filter(p -> "status".equals(p.get("name"))).findFirst()
                .orElseThrow();
        assertEquals(statuses, map(statusParameter, "schema").get("enum"));
        Object timeout = map(schemas, "SubmitBody", "properties", "timeout").get("oneOf");
        assertTrue(timeout instanceof List<?> choices && choices.size() == 2, "timeout is text or seconds: " + timeout);
        assertEquals("#/components/schemas/RequestedLimits", map(schemas, "SubmitBody", "properties", "limits").get("$ref"));
        assertEquals(new TreeSet<>(List.of("memory", "pids", "cpu_seconds", "output_bytes")),
                new TreeSet<>(map(schemas, "RequestedLimits", "properties").keySet()));
        assertEquals(statuses, map(schemas, "JobListRow", "properties", "status").get("enum"),
                "the list's rows are described (JobListRow): " + map(schemas, "JobList"));
        assertTrue(map(schemas, "SubmitBody", "properties").containsKey("callback_url"), "properties are snake_case as Jackson writes them");
        assertEquals(Arrays.stream(dev.nixexec.session.SessionStatus.values()).map(dev.nixexec.session.SessionStatus::id).toList(),
                map(schemas, "SessionView", "properties", "status").get("enum"));
        assertEquals(List.of("building", "ready", "failed"), map(schemas, "EnvironmentBuild", "properties", "status").get("enum"));
        for (var closed : Map.of("status", dev.nixexec.nix.EnvironmentsAhead.Status.values(),
                "source", dev.nixexec.nix.EnvironmentsAhead.Source.values()).entrySet()) {
            assertEquals(Arrays.stream(closed.getValue()).map(v -> v.name().toLowerCase(Locale.ROOT)).toList(),
                    map(schemas, "NodeEnvironment", "properties", closed.getKey()).get("enum"), "a node environment's " + closed.getKey());
        }
        assertEquals(List.of("lifecycle", "stdout", "stderr", "result", "closed"), map(schemas, "JobEventLine", "properties", "type").get("enum"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void answersDeclareTheirFieldsAndBodiesWhatTheChecksRequire() {
        Map<String, Object> document = document();
        Map<String, Object> schemas = map(document, "components", "schemas");
        String batchRefused = (String) map(document, "paths", "/v1/jobs/batch", "post", "responses", "200").get("description");
        assertTrue(batchRefused.contains("refused") && !batchRefused.contains("Idempotency-Key"),
                "a batch takes no Idempotency-Key; its 200 is every submission refused: " + batchRefused);
        assertTrue(((List<Object>) map(schemas, "KeyBody").get("required")).contains("role"), "a key needs its role");
        assertTrue(((List<Object>) map(schemas, "PolicyPatchBody").get("required")).contains("policy"), "a patch needs its policy");

        List<Object> job = (List<Object>) map(schemas, "JobView").get("required");
        assertTrue(job != null && job.containsAll(List.of("id", "status", "language", "created_at", "started_at", "stdout",
                "exit_code", "usage", "args", "encoding")), "a job's fields are always there: " + job);
        assertFalse(job.contains("session_id") || job.contains("rerun_of"), "but those written only when set: " + job);
        assertTrue(takesNull(map(schemas, "JobView", "properties", "started_at")), "a job not started yet has started_at null");
        assertTrue(takesNull(map(schemas, "JobView", "properties", "exit_code")), "a job not ended has no exit code");
        assertFalse(takesNull(map(schemas, "JobView", "properties", "id")) || takesNull(map(schemas, "JobView", "properties", "status")));
        assertEquals(List.of("#/components/schemas/JobListRow", "#/components/schemas/JobView"),
                ((List<Map<String, Object>>) map(schemas, "JobList", "properties", "items", "items").get("anyOf")).stream()
                        .map(s -> s.get("$ref")).toList(), "rows, or whole jobs with fields=full");
        assertEquals("#/components/schemas/Problem", map(schemas, "BatchItem", "properties", "error").get("$ref"));
        assertEquals("#/components/schemas/Problem", map(document, "paths", "/v1/jobs", "post", "responses", "400", "content",
                "application/problem+json", "schema").get("$ref"), "a refused submission's 400 is a problem");

        Map<String, Object> row = map(schemas, "JobListRow");
        assertFalse(map(row, "properties").containsKey("stdout") || map(row, "properties").containsKey("stderr"),
                "a list row has no stdout or stderr: " + map(row, "properties").keySet());
        assertTrue(((List<Object>) row.get("required")).containsAll(List.of("id", "status", "stdout_preview", "stdout_bytes")),
                "a row's fields: " + row.get("required"));
        assertEquals(List.of("id", "name", "role", "created_at", "last_used_at", "expires_at", "revoked_at"),
                map(schemas, "KeyListed").get("required"));

        List<Map<String, Object>> listParameters = (List<Map<String, Object>>) map(document, "paths", "/v1/jobs", "get")
                .get("parameters");
        Map<String, Object> fields = listParameters.stream().filter(p -> "fields".equals(p.get("name"))).findFirst().orElseThrow();
        assertEquals(List.of("summary", "full"), map(fields, "schema").get("enum"));
    }

    /**
     * Every named schema an answer reaches (a 2xx body of a /v1 operation, and the schemas inside
     * it) says which of its fields are always there: a {@code required} list (empty when every field
     * may be left out), or choices ({@code oneOf}) that each have one. The walk is shown to reach every
     * record a resource method returns (read from the compiled methods: their return types, their
     * {@code @APIResponse} schemas), so a new answer cannot be forgotten.
     */
    @Test
    void everyAnswerSchemaSaysWhichFieldsItAlwaysCarries() throws Exception {
        Map<String, Object> document = document();
        Map<String, Object> schemas = map(document, "components", "schemas");
        TreeSet<String> reached = new TreeSet<>();
        List<String> untyped = new ArrayList<>();
        map(document, "paths").forEach((path, item) -> map(item).forEach((method, operation) ->
                map(operation, "responses").forEach((status, response) -> {
                    if (path.startsWith("/v1/") && status.startsWith("2")) {
                        map(response, "content").values().forEach(media -> reach(map(media).get("schema"), schemas, reached));
                        Map<String, Object> json = map(response, "content", "application/json", "schema");
                        if (map(response, "content").containsKey("application/json") && json.keySet().stream()
                                .noneMatch(List.of("$ref", "type", "oneOf", "anyOf", "allOf")::contains)) {
                            untyped.add(method + " " + path + " " + status);
                        }
                    }
                })));
        assertEquals(List.of(), untyped, "JSON answers whose schema says nothing of their shape");
        TreeSet<String> returned = answerRecords();
        assertTrue(returned.containsAll(List.of("JobView", "JobList", "BatchItem", "JobEventLine", "PackageHit", "ProfileList",
                "ProfileBody", "WorkspaceList", "WorkspaceFiles", "WorkspaceFile", "EnvironmentBuild", "SessionView", "AuditPage",
                "CatalogContents", "CatalogGrouped")),
                "the resources' answers were found: " + returned);
        assertEquals(List.of(), returned.stream().filter(name -> !reached.contains(name)).toList(),
                "records the resources return that no 2xx answer of the document reaches (reached: " + reached + ")");
        assertTrue(reached.containsAll(List.of("Usage", "JobEnvironment", "SessionEnvironment", "TenantPolicy", "Problem",
                "CatalogEntry")),
                "the walk goes into the answers' fields: " + reached);
        List<String> undeclared = reached.stream().filter(name -> !map(schemas, name, "properties").isEmpty()
                && !declaresRequired(map(schemas, name))).toList();
        assertEquals(List.of(), undeclared, "answer schemas that do not say which fields they always carry");
    }

    /** Adds the named schemas {@code schema} refers to, and theirs, to {@code reached}. */
    private static void reach(Object schema, Map<String, Object> schemas, java.util.Set<String> reached) {
        if (!(schema instanceof Map<?, ?> node)) {
            if (schema instanceof List<?> choices) {
                choices.forEach(choice -> reach(choice, schemas, reached));
            }
            return;
        }
        if (node.get("$ref") instanceof String ref) {
            String name = ref.substring(ref.lastIndexOf('/') + 1);
            if (reached.add(name)) {
                reach(schemas.get(name), schemas, reached);
            }
            return;
        }
        for (String key : List.of("items", "additionalProperties", "oneOf", "anyOf", "allOf")) {
            reach(node.get(key), schemas, reached);
        }
        if (node.get("properties") instanceof Map<?, ?> properties) {
            properties.values().forEach(property -> reach(property, schemas, reached));
        }
    }

    /** A required list, or choices each with one. */
    private static boolean declaresRequired(Map<String, Object> schema) {
        return schema.get("required") instanceof List<?>
                || schema.get("oneOf") instanceof List<?> choices && !choices.isEmpty()
                        && choices.stream().allMatch(c -> c instanceof Map<?, ?> m && m.get("required") instanceof List<?>);
    }

    /**
     * The schema names of the records the /v1 resource methods answer with: their return types (a
     * record, or a list or stream of records) and the implementations their {@code @APIResponse}s name.
     */
    private static TreeSet<String> answerRecords() throws Exception {
        TreeSet<String> names = new TreeSet<>();
        for (Method method : resourceMethods().keySet()) {
            List<java.lang.reflect.Type> types = new ArrayList<>(List.of(method.getGenericReturnType()));
            if (method.getGenericReturnType() instanceof java.lang.reflect.ParameterizedType generic) {
                types.addAll(List.of(generic.getActualTypeArguments()));
            }
            for (var response : method.getAnnotationsByType(org.eclipse.microprofile.openapi.annotations.responses.APIResponse.class)) {
                for (var content : response.content()) {
                    types.add(content.schema().implementation());
                    types.addAll(List.of(content.schema().oneOf()));
                }
            }
            for (java.lang.reflect.Type type : types) {
                if (type instanceof Class<?> c && c.isRecord()) {
                    var named = c.getAnnotation(org.eclipse.microprofile.openapi.annotations.media.Schema.class);
                    names.add(named == null || named.name().isEmpty() ? c.getSimpleName() : named.name());
                }
            }
        }
        return names;
    }

    /** Whether a property's schema allows null: "null" among its types, or a {type: null} choice. */
    @SuppressWarnings("unchecked")
    private static boolean takesNull(Map<String, Object> property) {
        return property.get("type") instanceof List<?> types && types.contains("null")
                || property.get("anyOf") instanceof List<?> choices
                        && choices.stream().anyMatch(c -> "null".equals(((Map<String, Object>) c).get("type")));
    }

    /** One live answer: its operation's path template, its status and media type, its body. */
    record Answer(String name, String method, String path, int status, String contentType, Object body) {
    }

    static Answer answer(String name, String method, String path, io.restassured.response.Response response) {
        String type = response.getContentType().replaceAll(";.*", "").strip();
        return new Answer(name, method, path, response.statusCode(), type, response.as(Object.class));
    }

    /**
     * Real answers of the service (a submission's 201, a job, the list in both shapes, a batch, an
     * admin's key list, a 400 and a 404 problem) each match the schema the document gives for its
     * path, method and status, checked by a standard JSON Schema validator (Ajv, responses.mjs); and
     * a body the document does not allow is caught, so a drift cannot pass unseen.
     */
    @Test
    void liveResponsesMatchTheirSchemas() throws Exception {
        String tenant = dev.nixexec.testing.Api.tenant("openapi");
        String member = dev.nixexec.testing.Api.key(tenant, "member");
        var as = (java.util.function.Supplier<io.restassured.specification.RequestSpecification>)
                () -> dev.nixexec.testing.Api.as(member);
        List<Answer> answers = new ArrayList<>();
        var submitted = as.get().body(Map.of("language", "bash", "code", "echo hi; echo oops >&2", "metadata", Map.of("case", "openapi")))
                .post("/v1/jobs");
        submitted.then().statusCode(201);
        String id = submitted.path("id");
        answers.add(answer("submit", "post", "/v1/jobs", submitted));
        var finished = as.get().get("/v1/jobs/" + id + "?wait=60");
        finished.then().statusCode(200).body(json("status", org.hamcrest.Matchers.equalTo("succeeded")));
        answers.add(answer("get", "get", "/v1/jobs/{id}", finished));
        answers.add(answer("list", "get", "/v1/jobs", as.get().get("/v1/jobs").then().statusCode(200).extract().response()));
        // NDJSON: the lines, each a JobEventLine, checked as the list the document describes
        var lines = as.get().accept("application/x-ndjson").get("/v1/jobs/" + id + "/events").then().statusCode(200)
                .contentType(org.hamcrest.Matchers.startsWith("application/x-ndjson")).extract().asString();
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<Object> events = new ArrayList<>();
        for (String line : lines.lines().filter(l -> !l.isBlank()).toList()) {
            events.add(json.readValue(line, Object.class));
        }
        assertEquals(List.of("lifecycle", "stdout", "stderr", "result"), events.stream()
                .map(e -> ((Map<?, ?>) e).get("type")).distinct().sorted(java.util.Comparator.comparing(t ->
                        List.of("lifecycle", "stdout", "stderr", "result").indexOf(t))).toList(), "every type of line: " + lines);
        answers.add(new Answer("event lines", "get", "/v1/jobs/{id}/events", 200, "application/x-ndjson", events));
        // the event stream's frames carry the event's own data (here the text printed), not a JobEventLine
        String stream = as.get().accept("text/event-stream").get("/v1/jobs/" + id + "/events").then().statusCode(200)
                .extract().asString();
        assertTrue(stream.lines().anyMatch("event:stdout"::equals) && stream.lines().anyMatch("data:hi"::equals), stream);
        Map<String, Object> frames = map(document(), "paths", "/v1/jobs/{id}/events", "get", "responses", "200", "content",
                "text/event-stream", "schema");
        assertEquals("string", frames.get("type"), "the event stream is text: " + frames);
        assertFalse(frames.toString().contains("JobEventLine"), "its frames are not JobEventLines: " + frames);
        answers.add(answer("list full", "get", "/v1/jobs",
                as.get().get("/v1/jobs?fields=full").then().statusCode(200).extract().response()));
        answers.add(answer("batch", "post", "/v1/jobs/batch", as.get().body(Map.of("jobs", List.of(
                Map.of("language", "bash", "code", "true"), Map.of("language", "cobol", "code", "x"))))
                .post("/v1/jobs/batch").then().statusCode(201).extract().response()));
        answers.add(answer("batch refused", "post", "/v1/jobs/batch", as.get().body(Map.of("jobs", List.of(
                Map.of("language", "cobol", "code", "x")))).post("/v1/jobs/batch").then().statusCode(200).extract().response()));
        answers.add(answer("keys", "get", "/v1/admin/tenants/{id}/keys", dev.nixexec.testing.Api.as(dev.nixexec.testing.Api.ADMIN)
                .get("/v1/admin/tenants/" + tenant + "/keys").then().statusCode(200).extract().response()));
        answers.add(answer("400", "post", "/v1/jobs", as.get().body(Map.of("language", "bash")).post("/v1/jobs")
                .then().statusCode(400).extract().response()));
        answers.add(answer("404", "get", "/v1/jobs/{id}", as.get().get("/v1/jobs/" + java.util.UUID.randomUUID())
                .then().statusCode(404).extract().response()));

        assertEquals(List.of(), mismatches(answers), "live answers the document does not describe");
        // the check can fail: a job whose status is none of the enum's, and a row without its id
        @SuppressWarnings("unchecked")
        Map<String, Object> job = new java.util.HashMap<>((Map<String, Object>) answers.get(1).body());
        job.put("status", "exploded");
        @SuppressWarnings("unchecked")
        Map<String, Object> list = new java.util.HashMap<>((Map<String, Object>) answers.get(2).body());
        @SuppressWarnings("unchecked")
        Map<String, Object> row = new java.util.HashMap<>(((List<Map<String, Object>>) list.get("items")).getFirst());
        row.remove("id");
        list.put("items", List.of(row));
        // a batch answer is a job's id or a problem in its place: never both, never neither
        @SuppressWarnings("unchecked")
        Map<String, Object> refusal = ((List<Map<String, Object>>) answers.stream().filter(a -> a.name().equals("batch refused"))
                .findFirst().orElseThrow().body()).getFirst();
        Map<String, Object> both = new java.util.HashMap<>(refusal);
        both.put("id", id);
        // an event line of no type the stream knows
        @SuppressWarnings("unchecked")
        Map<String, Object> line = new java.util.HashMap<>((Map<String, Object>) events.getFirst());
        line.put("type", "status");
        assertEquals(List.of("bad job", "bad row", "bad batch item", "empty batch item", "bad event line"), mismatches(List.of(
                new Answer("bad job", "get", "/v1/jobs/{id}", 200, "application/json", job),
                new Answer("bad row", "get", "/v1/jobs", 200, "application/json", list),
                new Answer("bad batch item", "post", "/v1/jobs/batch", 201, "application/json", List.of(both)),
                new Answer("empty batch item", "post", "/v1/jobs/batch", 201, "application/json", List.of(Map.of())),
                new Answer("bad event line", "get", "/v1/jobs/{id}/events", 200, "application/x-ndjson", List.of(line)))).stream()
                .map(m -> m.substring(0, m.indexOf(':'))).toList());
    }

    /**
     * The answers of administration and audit (tenants, a policy change, keys, the webhook secret,
     * the audit log, nodes, languages) declare every field they always carry as required, and real
     * ones match their schemas, their nulls included: an audit record of no job and no node, a
     * page with no next cursor, a node's role (all, api or worker, not a key's role).
     */
    @Test
    void administrationAndAuditAnswersDeclareTheirFieldsAndMatchThem() throws Exception {
        Map<String, Object> schemas = map(document(), "components", "schemas");
        Map<String, List<String>> fields = Map.of(
                "TenantView", List.of("id", "name", "policy", "granted", "created_at"),
                "WebhookSecretView", List.of("secret"),
                "AuditPage", List.of("items", "next_cursor"),
                "AuditEntry", List.of("id", "tenant_id", "job_id", "key_id", "node_id", "kind", "detail", "at", "key"),
                "LanguageView", List.of("language", "interpreter", "package_set", "example_package", "version"),
                "NodeView", List.of("id", "role", "concurrency", "running", "started_at", "heartbeat_at", "environments"),
                "NodeEnvironment", List.of("name", "source", "status", "detail", "updated_at"));
        fields.forEach((name, expected) -> assertEquals(expected, map(schemas, name).get("required"), name + "'s fields"));
        assertEquals(List.of("all", "api", "worker"), map(schemas, "NodeView", "properties", "role").get("enum"));
        assertEquals(List.of("operator", "admin", "member", "auditor"), map(schemas, "KeyListed", "properties", "role").get("enum"));

        var operator = (java.util.function.Supplier<io.restassured.specification.RequestSpecification>)
                () -> dev.nixexec.testing.Api.as(dev.nixexec.testing.Api.ADMIN);
        List<Answer> answers = new ArrayList<>();
        var created = operator.get().body(Map.of("name", "openapi-admin-" + java.util.UUID.randomUUID().toString().substring(0, 8)))
                .post("/v1/admin/tenants");
        created.then().statusCode(201);
        String tenant = created.path("id");
        answers.add(answer("tenant created", "post", "/v1/admin/tenants", created));
        answers.add(answer("tenants", "get", "/v1/admin/tenants",
                operator.get().get("/v1/admin/tenants").then().statusCode(200).extract().response()));
        answers.add(answer("policy changed", "patch", "/v1/admin/tenants/{id}", operator.get()
                .body(Map.of("policy", Map.of("max_queued", 5))).patch("/v1/admin/tenants/" + tenant)
                .then().statusCode(200).extract().response()));
        answers.add(answer("key made", "post", "/v1/admin/tenants/{id}/keys", operator.get().body(Map.of("role", "member"))
                .post("/v1/admin/tenants/" + tenant + "/keys").then().statusCode(201).extract().response()));
        answers.add(answer("webhook secret", "post", "/v1/admin/tenants/{id}/webhook-secret", operator.get()
                .post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201).extract().response()));
        var audit = operator.get().get("/v1/audit?tenant=" + tenant).then().statusCode(200).extract().response();
        assertTrue(audit.<List<Object>>path("items.job_id").contains(null) && audit.path("next_cursor") == null,
                "records of no job, and no next page: " + audit.asString());
        answers.add(answer("audit", "get", "/v1/audit", audit));
        answers.add(answer("languages", "get", "/v1/languages",
                operator.get().get("/v1/languages").then().statusCode(200).extract().response()));
        var nodes = operator.get().get("/v1/nodes").then().statusCode(200).extract().response();
        assertTrue(!nodes.<List<Object>>path("role").isEmpty(), "this node is listed: " + nodes.asString());
        answers.add(answer("nodes", "get", "/v1/nodes", nodes));
        assertEquals(List.of(), mismatches(answers), "live answers the document does not describe");
    }

    /**
     * The other answers (sessions, workspaces and their files, profiles, an environment built
     * ahead) match their schemas too, their nulls included: a session without a name, profile,
     * agent, description, environment or error, a workspace no job has changed.
     */
    @Test
    void sessionWorkspaceProfileAndEnvironmentAnswersMatchTheirSchemas() throws Exception {
        Map<String, Object> schemas = map(document(), "components", "schemas");
        assertEquals(List.of("id", "name", "status", "packages", "profile", "network", "writable", "env_names", "agent",
                "description", "idle_ttl", "environment", "build_job_id", "created_at", "last_used_at", "expires_at", "error",
                "host_workspace"), map(schemas, "SessionView").get("required"));
        assertEquals(List.of("id", "name", "quota_bytes", "quota_files", "bytes", "files", "version", "version_job_id",
                "created_at", "updated_at"), map(schemas, "WorkspaceView").get("required"));
        Map<String, List<String>> fields = new java.util.LinkedHashMap<>();
        fields.put("SessionEnvironment", List.of("store_path", "nixpkgs_revision"));
        fields.put("WorkspaceList", List.of("items"));
        fields.put("WorkspaceFiles", List.of("version", "items"));
        fields.put("WorkspaceFile", List.of("path", "size", "sha256", "content_type", "updated_at"));
        fields.put("ProfileList", List.of("items"));
        fields.put("ProfileBody", List.of("name", "description", "network", "packages", "writable", "env", "limits", "built_in"));
        // the store path, revision, build time and cache hit once built, the error once failed
        fields.put("EnvironmentBuild", List.of("id", "status", "language", "packages"));
        // a policy's every field may be left out (the service's default)
        fields.put("TenantPolicy", List.of());
        fields.put("CatalogContents", List.of("agents", "tools"));
        fields.put("CatalogGrouped", List.of("agent_categories", "tools"));
        // a tool has no category
        fields.put("CatalogEntry", List.of("name", "attribute", "description"));
        fields.forEach((name, expected) -> assertEquals(expected, map(schemas, name).get("required"), name + "'s fields"));
        assertTrue(takesNull(map(schemas, "SessionEnvironment", "properties", "nixpkgs_revision"))
                && !takesNull(map(schemas, "SessionEnvironment", "properties", "store_path")), "a session's revision may be unknown");
        String tenant = dev.nixexec.testing.Api.tenant("openapi-others");
        String member = dev.nixexec.testing.Api.key(tenant, "member");
        var as = (java.util.function.Supplier<io.restassured.specification.RequestSpecification>)
                () -> dev.nixexec.testing.Api.as(member);
        List<Answer> answers = new ArrayList<>();
        var session = as.get().body(Map.of()).post("/v1/sessions").then().statusCode(201).extract().response();
        answers.add(answer("session made", "post", "/v1/sessions", session));
        var ready = as.get().body(Map.of("packages", List.of("hello"))).post("/v1/sessions?wait=120").then().statusCode(201)
                .body(json("status", org.hamcrest.Matchers.equalTo("ready"))).extract().response();
        assertTrue(ready.path("environment.store_path") != null, "a ready session has its environment: " + ready.asString());
        answers.add(answer("session ready", "post", "/v1/sessions", ready));
        var profile = dev.nixexec.testing.Api.as(dev.nixexec.testing.Api.key(tenant, "admin"))
                .body(Map.of("description", "for the document", "packages", List.of("hello"), "network", "off",
                        "limits", Map.of("timeout", "20s")))
                .put("/v1/profiles/openapi").then().statusCode(201).extract().response();
        answers.add(answer("profile put", "put", "/v1/profiles/{name}", profile));
        answers.add(answer("session", "get", "/v1/sessions/{id}",
                as.get().get("/v1/sessions/" + session.path("id")).then().statusCode(200).extract().response()));
        answers.add(answer("sessions", "get", "/v1/sessions", as.get().get("/v1/sessions").then().statusCode(200).extract().response()));
        var workspace = as.get().body(Map.of("name", "openapi-" + java.util.UUID.randomUUID().toString().substring(0, 8))).post("/v1/workspaces").then().statusCode(201).extract().response();
        answers.add(answer("workspace made", "post", "/v1/workspaces", workspace));
        answers.add(answer("file put", "put", "/v1/workspaces/{id}/files/{path}", as.get().contentType("application/octet-stream")
                .body("hi".getBytes()).put("/v1/workspaces/" + workspace.path("id") + "/files/a.txt").then().statusCode(200)
                .extract().response()));
        answers.add(answer("files", "get", "/v1/workspaces/{id}/files",
                as.get().get("/v1/workspaces/" + workspace.path("id") + "/files").then().statusCode(200).extract().response()));
        answers.add(answer("workspace", "get", "/v1/workspaces/{id}",
                as.get().get("/v1/workspaces/" + workspace.path("id")).then().statusCode(200).extract().response()));
        answers.add(answer("workspaces", "get", "/v1/workspaces", as.get().get("/v1/workspaces").then().statusCode(200).extract().response()));
        answers.add(answer("profiles", "get", "/v1/profiles", as.get().get("/v1/profiles").then().statusCode(200).extract().response()));
        answers.add(answer("catalog", "get", "/v1/catalog", as.get().get("/v1/catalog").then().statusCode(200)
                .body(json("tools", org.hamcrest.Matchers.not(org.hamcrest.Matchers.empty()))).extract().response()));
        answers.add(answer("catalog grouped", "get", "/v1/catalog", as.get().get("/v1/catalog?grouped=true").then().statusCode(200)
                .body(json("agent_categories", org.hamcrest.Matchers.notNullValue())).extract().response()));
        var environment = as.get().body(Map.of("language", "bash")).post("/v1/environments");
        answers.add(answer("environment", "post", "/v1/environments", environment));
        answers.add(answer("environment read", "get", "/v1/environments/{id}",
                as.get().get("/v1/environments/" + environment.path("id")).then().statusCode(200).extract().response()));
        assertEquals(List.of(), mismatches(answers), "live answers the document does not describe");
    }

    /** The names of the answers responses.mjs finds not to match, each with why. */
    static List<String> mismatches(List<Answer> answers) throws Exception {
        Path dir = Files.createDirectories(Path.of("target/openapi-responses"));
        Path document = dir.resolve("openapi.json");
        Path file = dir.resolve("responses-" + answers.getFirst().name().replace(' ', '-') + ".json");
        Files.writeString(document, given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString());
        List<Map<String, Object>> written = answers.stream().map(a -> Map.of("name", a.name(), "method", a.method(),
                "path", a.path(), "status", (Object) a.status(), "content_type", a.contentType(), "body", a.body())).toList();
        Files.writeString(file, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(written));
        NodeProject.Outcome outcome = new NodeProject("openapi").run("responses.mjs", 300, document.toAbsolutePath().toString(),
                file.toAbsolutePath().toString());
        List<String> lines = outcome.output().lines().toList();
        assertTrue(lines.stream().filter(l -> l.startsWith("ok ") || l.startsWith("mismatch ")).count() == answers.size(),
                "one verdict per answer:\n" + outcome.output());
        List<String> mismatched = lines.stream().filter(l -> l.startsWith("mismatch ")).map(l -> l.substring(9)).toList();
        assertEquals(mismatched.isEmpty() ? 0 : 1, outcome.exitCode(), outcome.output());
        return mismatched;
    }

    /** The document as served passes a standard validator (swagger-parser: schema of its OpenAPI version, $refs). */
    @Test
    void aStandardValidatorAcceptsTheDocument() throws Exception {
        String json = given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString();
        Path file = Files.createTempFile("nixexec-openapi", ".json");
        try {
            Files.writeString(file, json);
            NodeProject.Outcome outcome = new NodeProject("openapi").run("validate.mjs", 300, file.toString());
            assertEquals(0, outcome.exitCode(), outcome.output());
            assertTrue(outcome.output().contains("valid: OpenAPI"), outcome.output());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}

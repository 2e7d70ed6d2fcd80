package dev.nixexec.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.JobStatus;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.NodeProject;
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
        Path classes = Path.of(JobsResource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        TreeSet<String> operations = new TreeSet<>();
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
                        operations.add(verb.toLowerCase(Locale.ROOT) + " " + path);
                    }
                }
            }
        }
        return operations;
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
        assertTrue(map(paths, "/v1/jobs", "post", "responses").containsKey("415"), "a JSON body can be refused with 415");
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
        assertEquals(statuses, map(schemas, "JobList", "properties", "items", "items", "properties", "status").get("enum"),
                "the list's rows are described (JobListRow): " + map(schemas, "JobList"));
        assertTrue(map(schemas, "SubmitBody", "properties").containsKey("callback_url"), "properties are snake_case as Jackson writes them");
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

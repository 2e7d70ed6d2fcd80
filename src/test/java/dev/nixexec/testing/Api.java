package dev.nixexec.testing;

import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.startsWith;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * REST calls the tests make as a caller would: with a bearer key, as JSON, against the service
 * RestAssured points at (the in-process one of a {@code @QuarkusTest}, or the packaged one of a
 * {@code @QuarkusIntegrationTest}). Tenants get a random suffix, so tests sharing a database never meet.
 */
public final class Api {

    /** The operator key of the test profile ({@code %test.nixexec.auth.bootstrap-admin-key}). */
    public static final String ADMIN = "nx_test_bootstrap_admin_secret";

    private Api() {
    }

    public static RequestSpecification as(String key) {
        return given().header("Authorization", "Bearer " + key).contentType("application/json");
    }

    /** A new tenant named {@code prefix-xxxxxxxx}; its id. */
    public static String tenant(String prefix) {
        return tenant(prefix, null);
    }

    /** A new tenant with a policy (null: the default one); its id. */
    public static String tenant(String prefix, Map<String, Object> policy) {
        String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Object> body = policy == null ? Map.of("name", name) : Map.of("name", name, "policy", policy);
        return read(as(ADMIN).body(body).post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
    }

    /** A new key of {@code role} for the tenant; its secret. */
    public static String key(String tenantId, String role) {
        return read(as(ADMIN).body(Map.of("role", role)).post("/v1/admin/tenants/" + tenantId + "/keys")
                .then().statusCode(201).body(json("key", startsWith("nx_"))).extract().asString(), "key");
    }

    /** The member key of a new tenant. */
    public static String memberKey(String prefix) {
        return key(tenant(prefix), "member");
    }

    /** A job submitted (201); its id. */
    public static String submit(String key, Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    /**
     * Blocks until the job's event stream ({@code GET /v1/jobs/{id}/events}) carries {@code data}
     * (a line the code printed, say): what the code did so far, known without guessing a delay.
     * Fails if the stream ends (the job did) without it.
     */
    public static void awaitEvent(String key, String jobId, String data) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port
                        + RestAssured.basePath + "/v1/jobs/" + jobId + "/events"))
                .header("Authorization", "Bearer " + key).header("Accept", "text/event-stream").build();
        try (HttpClient client = HttpClient.newHttpClient();
                Stream<String> lines = client.send(request, HttpResponse.BodyHandlers.ofLines()).body()) {
            if (lines.noneMatch(("data:" + data)::equals)) {
                throw new AssertionError("job " + jobId + " ended without the event data '" + data + "'");
            }
        }
    }
}

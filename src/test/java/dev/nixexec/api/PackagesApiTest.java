package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.vertx.core.MultiMap;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code GET /v1/packages} over the offline fixture with real nix and PostgreSQL: refused as
 * unavailable until the pin's index is listed (in the background, once), then one query.
 * {@link NixSpy} gives the application a fresh state directory, so its database holds no index yet.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackagesApiTest {

    @Inject
    EntityManager em;

    String key;

    @BeforeEach
    void key() {
        key = memberKey("packages");
    }

    @Test
    @Order(1)
    void theFirstSearchIsRefusedUntilThePinIsIndexedThenItAnswers() throws Exception {
        // no index yet: no interpreter version either (asked before the search that starts the
        // listing, which the fixture's small nixpkgs can finish within the next request)
        as(key).get("/v1/languages").then().statusCode(200).body(json("version", everyItem(nullValue())));
        io.restassured.response.Response first = as(key).get("/v1/packages?q=tinypkg");
        first.then().statusCode(503).header("Retry-After", "10")
                .contentType("application/problem+json").body(json("detail", containsString("try again shortly")));
        Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() ->
                as(key).get("/v1/packages?q=tinypkg").statusCode() == 200);
        io.restassured.response.Response hits = as(key).get("/v1/packages?q=tinypkg");
        hits.then().statusCode(200)
                .body(json("[0].attribute", equalTo("python3Packages.tinypkg")))
                .body(json("[0].version", equalTo("1.0")))
                .body(json("[0].description", equalTo("python3.11-tinypkg-1.0 (offline test fixture)")))
                .body(json("[1].attribute", equalTo("python3Packages.tinypkg2")));
        // both answers as the OpenAPI document describes them (checked here: only the application's
        // first search sees the 503, and the tests share one application)
        assertEquals(java.util.List.of(), OpenApiDocumentTest.mismatches(java.util.List.of(
                OpenApiDocumentTest.answer("first search", "get", "/v1/packages", first),
                OpenApiDocumentTest.answer("hits", "get", "/v1/packages", hits))),
                "live answers the document does not describe");
    }

    @Test
    @Order(2)
    void aLanguageRestrictsTheSearchToItsPackageSet() {
        as(key).get("/v1/packages?q=tiny&language=python").then().statusCode(200)
                .body(json("attribute", containsInAnyOrder("python3Packages.tinypkg", "python3Packages.tinypkg2",
                        "python3Packages.tinypng")));
        as(key).get("/v1/packages?q=tiny&language=lua").then().statusCode(200)
                .body(json("attribute", equalTo(java.util.List.of("lua5_4Packages.tinylua"))));
        as(key).get("/v1/packages?q=bash&language=bash").then().statusCode(200)
                .body(json("attribute", hasItem("bash"))).body(json("attribute", everyItem(not(containsString(".")))));
        as(key).get("/v1/packages?q=python&limit=1").then().statusCode(200).body(json("size()", equalTo(1)))
                .body(json("[0].attribute", startsWith("python")));
    }

    /**
     * The languages' interpreter versions come from the pin's index (no job, no nix process). The
     * fixture's interpreters are the host's and name no version, so the test gives python3's entry one.
     */
    @Test
    @Order(3)
    void languagesNameTheirInterpreterVersionFromTheIndex() {
        Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() ->
                as(key).get("/v1/packages?q=tinypkg").statusCode() == 200);
        sql("UPDATE package_index_entries SET version = '3.11.7' WHERE attribute = 'python3'");
        try {
            as(key).get("/v1/languages").then().statusCode(200)
                    .body(json("find { it.language == 'python' }.version", equalTo("3.11.7")))
                    .body(json("find { it.language == 'python' }.interpreter", equalTo("python3")))
                    .body(json("find { it.language == 'bash' }.version", nullValue()));
            // and the same over MCP: list_languages names python's version, no other
            try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(message ->
                    MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + key)).build().connect()) {
                client.when().toolsCall("list_languages", Map.of(), r -> {
                    String text = r.content().get(0).asText().text();
                    assertTrue(text.contains("python: interpreter python3 3.11.7,"), text);
                    assertTrue(text.contains("bash: interpreter bash,"), text);
                }).thenAssertResults();
            }
        } finally {
            sql("UPDATE package_index_entries SET version = '' WHERE attribute = 'python3'");
        }
    }

    private void sql(String statement) {
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery(statement).executeUpdate());
    }

    @Test
    void aKeyIsRequired() {
        given().get("/v1/packages?q=jq").then().statusCode(401);
    }

    @Test
    void badParametersAreRefusedAllAtOnce() {
        as(key).get("/v1/packages").then().statusCode(400).body(json("errors[0].field", equalTo("q")));
        as(key).get("/v1/packages?q=" + "x".repeat(101)).then().statusCode(400).body(json("errors[0].field", equalTo("q")));
        as(key).urlEncodingEnabled(false).get("/v1/packages?q=a%00b").then().statusCode(400)
                .body(json("errors[0].field", equalTo("q")));
        as(key).queryParam("q", " ").queryParam("language", "cobol").queryParam("limit", 0).get("/v1/packages").then().statusCode(400)
                .body(json("errors.field", equalTo(java.util.List.of("q", "language", "limit"))))
                .body(json("errors[1].message", startsWith("unknown language 'cobol'; one of python")));
        as(key).get("/v1/packages?q=jq&limit=101").then().statusCode(400).body(json("errors[0].field", equalTo("limit")));
    }
}

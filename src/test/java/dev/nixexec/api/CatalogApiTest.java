package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.json;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.notNullValue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code GET /v1/catalog}: nixo's agents and tools, flat and grouped, filtered. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class CatalogApiTest {

    @Test
    void aKeyIsRequired() {
        given().get("/v1/catalog").then().statusCode(401);
    }

    @Test
    void theDefaultListHasNixosAgentsAndToolsWithTheirAttributes() {
        as(memberKey("catalog")).get("/v1/catalog").then().statusCode(200)
                .body(json("agents.name", hasItems("claude-code", "codex", "gemini-cli", "amp", "aider", "opencode")))
                .body(json("agents.find { it.name == 'aider' }.attribute", equalTo("aider-chat")))
                .body(json("agents.find { it.name == 'amp' }.attribute", equalTo("amp-cli")))
                .body(json("agents.category", everyItem(notNullValue())))
                .body(json("tools.name", equalTo(List.of("python312", "nodejs_22", "rustc", "cargo", "go", "git",
                        "coreutils", "bash", "findutils", "gnugrep", "gnused", "gawk", "gnumake", "gcc", "gnutar", "gzip",
                        "curl", "cacert", "ripgrep", "fd", "jq", "less", "zsh", "nix"))))
                .body(json("tools.find { it.name == 'fd' }.attribute", equalTo("fd")))
                .body(json("tools.find { it.name == 'git' }.containsKey('category')", equalTo(false)));
    }

    @Test
    void aFilterMatchesNameDescriptionOrCategoryInAnyCase() {
        String key = memberKey("catalog");
        as(key).get("/v1/catalog?filter=JSON").then().statusCode(200).body(json("agents", empty()))
                .body(json("tools.name", equalTo(List.of("jq"))));
        as(key).get("/v1/catalog?filter=Multi-Provider").then().body(json("agents.name",
                equalTo(List.of("aider", "opencode", "goose", "crush", "plandex", "codebuff", "kilocode",
                        "open-interpreter")))).body(json("tools", empty()));
        as(key).get("/v1/catalog?filter=ripgr").then().body(json("tools.name", equalTo(List.of("ripgrep"))));
        as(key).get("/v1/catalog?filter=no-such-thing").then().body(json("agents", empty())).body(json("tools", empty()));
    }

    @Test
    void groupedListsAgentsByCategory() {
        as(memberKey("catalog")).get("/v1/catalog?grouped=true&filter=code").then().statusCode(200)
                .body(json("agent_categories.vendor.name", hasItems("claude-code", "codex", "qwen-code")))
                .body(json("agent_categories.multi-provider.name", equalTo(List.of("opencode", "codebuff", "kilocode",
                        "open-interpreter"))))
                .body(json("containsKey('agents')", equalTo(false)))
                .body(json("tools", empty()));
    }
}

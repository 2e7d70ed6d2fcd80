package dev.nixexec.testing;

import static dev.nixexec.testing.JsonBody.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.restassured.path.json.JsonPath;
import java.util.List;
import org.hamcrest.StringDescription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@link JsonBody} reads every kind of path the tests use exactly as rest-assured does. */
class JsonBodyTest {

    private static final String DOCUMENT = """
            {"id": "j1", "status": "succeeded", "exit_code": 0, "big": 12345678901, "huge": 123456789012345678901234,
             "ratio": 0.25, "tiny": 1e-300, "wide": 1e300, "ok": true, "none": null, "empty": [], "sparse": [{"id": "x"}, null, {"other": 1}], "nested": [[1, 2], [3]],
             "items": [{"id": "a", "kind": "submitted", "n": 400, "detail": {"status": "queued", "env_names": ["A", "B"]}},
                       {"id": "b", "kind": "finished", "n": 200, "detail": {"status": "succeeded", "exit_code": 3}},
                       {"id": "c", "kind": "finished", "n": 400, "flag": false}],
             "paths": {"/v1/jobs": {"post": {"security": [{"bearer": []}]}}},
             "agent_categories": {"multi-provider": {"name": "aider"}},
             "checks": [{"name": "execution-host", "data": {"nix-store": "up", "limits": {"cpu": 1.5}}}]}
            """;

    @ParameterizedTest
    @ValueSource(strings = {"", "id", "status", "exit_code", "big", "huge", "ratio", "tiny", "wide", "ok", "none",
            "missing", "empty", "empty.size()", "nested", "nested[1][0]", "sparse.id", "items", "items.size()", "size()",
            "items[0].id", "items[-1].id", "items[9]", "items.id", "items.detail.status", "items[0].detail.env_names[1]",
            "items.find { it.kind == 'finished' }.id", "items.find { it.kind == 'nothing' }",
            "items.findAll { it.kind == 'finished' }.id", "items.findAll { it.n == 400 }.size()",
            "items.n.findAll { it == 400 }.size()", "items.find { it.flag == false }.id",
            "items.find { it.detail.status == 'succeeded' }.detail.exit_code", "items.find { it.kind == 'submitted' }.key_id",
            "paths.'/v1/jobs'.post.security[0]", "agent_categories.multi-provider.name",
            "checks.find { it.name == 'execution-host' }.data.'nix-store'",
            "checks.find { it.name == 'execution-host' }.data.limits", "checks[0].data.limits.cpu",
            "containsKey('paths')", "containsKey('absent')", "items[0].containsKey('detail')"})
    void readsAsRestAssuredDoes(String path) {
        Object expected = JsonPath.from(DOCUMENT).get(path);
        Object read = JsonBody.read(DOCUMENT, path);
        assertEquals(expected, read, path);
        assertEquals(expected == null ? null : expected.getClass(), read == null ? null : read.getClass(), path);
    }

    @Test
    void aFailedMatchNamesThePathAndWhatItRead() {
        var matcher = json("items[1].detail.status", equalTo("failed"));
        assertFalse(matcher.matches(DOCUMENT));
        String description = StringDescription.toString(matcher);
        assertTrue(description.contains("items[1].detail.status") && description.contains("\"failed\"")
                && description.contains("it read: succeeded"), description);
        assertThat(DOCUMENT, json("items.id", hasSize(3)));
    }

    @Test
    void readingANameOfAValueIsAMismatchNotANull() {
        var matcher = json("status.code", equalTo(null));
        assertFalse(matcher.matches(DOCUMENT));
        assertThat(StringDescription.toString(matcher), containsString("cannot read 'code' of succeeded"));
    }

    @Test
    void aPathItCannotReadIsRefused() {
        for (String path : List.of("items.collect { it.id }", "items[x]", "items.find { other == 1 }", "a..b")) {
            assertThrows(IllegalStateException.class, () -> JsonBody.read(DOCUMENT, path), path);
        }
    }
}

package dev.nixexec.attach;

import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.Api;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.ui.AuditUiTest;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * An attached shell is audited as what it showed and what was typed: a real session, a real
 * WebSocket shell, then the recording (asciicast v2) as a reviewer reads it, the session's page
 * listing it with its commands and build, the audit log linking it; members and other tenants refused.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ShellAuditTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URI base;

    @Test
    void aShellIsRecordedReplayableAndReviewedWithItsSession() throws Exception {
        String tenant = Api.tenant("shell-audit");
        String member = read(Api.as(Api.ADMIN).body(Map.of("role", "member", "name", "dev-laptop"))
                .post("/v1/admin/tenants/" + tenant + "/keys").then().statusCode(201).extract().asString(), "key");
        String session = read(Api.as(member).body(Map.of("name", "work")).post("/v1/sessions?wait=120").then()
                .statusCode(201).extract().asString(), "id");
        String buildJob = read(Api.as(member).get("/v1/sessions/" + session).then().statusCode(200).extract().asString(),
                "build_job_id");
        String command = read(Api.as(member).body(Map.of("command", List.of("echo", "from-exec")))
                .post("/v1/sessions/" + session + "/exec?wait=60").then().statusCode(200).extract().asString(), "id");

        AttachEndpointTest.Terminal terminal = new AttachEndpointTest.Terminal();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + member)
                .buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session + "/attach"),
                        terminal).join();
        ws.sendBinary(ByteBuffer.wrap("export TOKEN=s3cret; echo seen-$((6*7))\n".getBytes(StandardCharsets.UTF_8)), true)
                .join();
        terminal.await("seen-42");
        ws.sendBinary(ByteBuffer.wrap("exit 0\n".getBytes(StandardCharsets.UTF_8)), true).join();
        assertEquals("1000 exit 0", terminal.closed.get(30, TimeUnit.SECONDS));

        AuditUiTest.Browser auditor = AuditUiTest.signIn(Api.key(tenant, "auditor"));
        // the audit log names the shell's end, who opened it, and links its recording
        String[] recording = new String[1];
        Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
            String log = auditor.request().queryParam("kind", "shell_ended").get("/ui/audit").then().statusCode(200)
                    .extract().asString();
            Matcher link = Pattern.compile("href=\"/ui/shells/([0-9a-f-]{36})\"").matcher(log);
            if (!link.find()) {
                return false;
            }
            recording[0] = link.group(1);
            assertTrue(log.contains("dev-laptop (member)"), log);
            assertTrue(log.contains("closed a shell: exit 0"), log);
            return true;
        });

        // the recording replays: asciicast v2, what was typed and what was shown, in order
        String cast = auditor.request().get("/ui/shells/" + recording[0] + "/cast").then().statusCode(200)
                .contentType(org.hamcrest.Matchers.startsWith("application/x-asciicast")).extract().asString();
        List<String> lines = cast.lines().toList();
        JsonNode header = JSON.readTree(lines.get(0));
        assertEquals(2, header.get("version").asInt());
        assertEquals(80, header.get("width").asInt());
        assertEquals(24, header.get("height").asInt());
        assertTrue(header.get("timestamp").asLong() > 1_700_000_000L, lines.get(0));
        StringBuilder typed = new StringBuilder();
        StringBuilder shown = new StringBuilder();
        for (String line : lines.subList(1, lines.size())) {
            JsonNode event = JSON.readTree(line);
            (event.get(1).asText().equals("i") ? typed : shown).append(event.get(2).asText());
        }
        assertTrue(typed.toString().contains("export TOKEN=s3cret; echo seen-$((6*7))\n"), typed.toString());
        assertTrue(typed.toString().contains("exit 0"), typed.toString());
        assertTrue(shown.toString().contains("seen-42"), shown.toString());

        String player = auditor.request().get("/ui/shells/" + recording[0]).then().statusCode(200).extract().asString();
        assertTrue(player.contains("data-cast=\"/ui/shells/" + recording[0] + "/cast\""), player);
        assertTrue(player.contains("dev-laptop (member)"), player);

        // the session's page: its build marked as a build, its command, its shell
        String page = auditor.request().get("/ui/sessions/" + session).then().statusCode(200).extract().asString();
        assertTrue(page.contains("Session work"), page);
        String commands = page.substring(page.indexOf("id=\"session-commands\""), page.indexOf("id=\"session-shells\""));
        assertTrue(commands.contains(command) && commands.contains(buildJob), commands);
        assertTrue(commands.matches("(?s).*" + buildJob + "</a> <span class=\"badge\">session&#39;s environment build</span>.*"),
                commands);
        assertTrue(page.contains("href=\"/ui/shells/" + recording[0] + "\""), page);

        // a command's page links its session; the build's says it is a build
        String commandPage = auditor.request().get("/ui/jobs/" + command).then().statusCode(200).extract().asString();
        assertTrue(commandPage.contains("A command of <a href=\"/ui/sessions/" + session + "\">its session</a>"), commandPage);
        String buildPage = auditor.request().get("/ui/jobs/" + buildJob).then().statusCode(200).extract().asString();
        assertTrue(buildPage.contains("<h1>Environment build"), buildPage);
        String list = auditor.request().get("/ui/jobs").then().statusCode(200).extract().asString();
        assertTrue(list.contains(buildJob + "</a> <span class=\"badge\">session&#39;s environment build</span>"),
                "the job list marks the build: " + list);
        assertEquals("session", read(Api.as(member).get("/v1/jobs/" + buildJob).then().statusCode(200).extract()
                .asString(), "build"));

        // what was typed is for reviewers of the tenant only
        AuditUiTest.Browser memberUi = AuditUiTest.signIn(member);
        memberUi.request().get("/ui/shells/" + recording[0] + "/cast").then().statusCode(403);
        assertTrue(memberUi.request().get("/ui/sessions/" + session).then().statusCode(200).extract().asString()
                .contains("auditor, admin and operator keys only"));
        AuditUiTest.Browser otherAuditor = AuditUiTest.signIn(Api.key(Api.tenant("shell-audit-other"), "auditor"));
        otherAuditor.request().get("/ui/shells/" + recording[0] + "/cast").then().statusCode(404);
        otherAuditor.request().get("/ui/sessions/" + session).then().statusCode(404);
    }
}

package dev.nixexec.session;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.sandbox.BwrapSandbox;
import dev.nixexec.sandbox.RunGate;
import dev.nixexec.sandbox.SandboxEvent;
import dev.nixexec.sandbox.SandboxResult;
import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The seam the attach endpoint opens shells through: a ready session's sandbox with its files
 * materialised on this node, run here in real bubblewrap (an interactive bash fed its commands on
 * stdin), its files stored back on close and seen by the next exec; another tenant's session is
 * empty (404), a failed one refused, an auditor refused.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SessionShellsTest {

    @Inject
    SessionShells shells;

    @Inject
    BwrapSandbox sandbox;

    @Test
    void aShellRunsInTheSessionAndItsFilesAreStoredBackOnClose() {
        String tenant = tenant("shell");
        String member = key(tenant, "member");
        Caller caller = new Caller(UUID.fromString(tenant), null, Role.MEMBER);
        String id = SessionsApiTest.created(member, Map.of("packages", List.of("hello"), "name", "shelled",
                "env", Map.of("GREETING", "hi")));
        SandboxResult result;
        try (SessionShell shell = shells.open(caller, "shelled").orElseThrow()) {
            assertEquals(UUID.fromString(id), shell.sessionId());
            SandboxSpec s = shell.sandbox();
            byte[] typed = "echo \"$GREETING\" > /workspace/typed; hello > ~/h; echo \"$HOME\"; exit\n"
                    .getBytes(StandardCharsets.UTF_8);
            result = sandbox.run(new SandboxSpec(s.environmentPath(), s.closure(), s.codeFileName(), s.code(), s.command(),
                    s.env(), typed, s.limits(), s.network(), s.hostWorkspace(), s.materialisedWorkspace(), s.persistent(),
                    s.args(), s.hostMounts()),
                    RunGate.OPEN).filter(e -> e instanceof SandboxEvent.Exited).map(e -> ((SandboxEvent.Exited) e).result())
                    .toUni().await().indefinitely();
        }
        assertEquals(0, result.exitCode(), result.stderr().text());
        assertTrue(result.stdout().text().contains("/home/sandbox"), result.stdout().text());
        String read = read(as(member).body(Map.of("command", List.of("cat", "/workspace/typed", "/home/sandbox/h")))
                .post("/v1/sessions/" + id + "/exec?wait=60").then().statusCode(200).extract().asString(), "stdout");
        assertEquals("hi\nHello, world!\n", read);
    }

    @Test
    void anotherTenantsSessionIsEmptyAFailedOneAndAnAuditorAreRefused() {
        String tenant = tenant("shell-r");
        String member = key(tenant, "member");
        String id = SessionsApiTest.created(member, Map.of());
        assertTrue(shells.open(new Caller(UUID.randomUUID(), null, Role.MEMBER), id).isEmpty());
        assertThrows(Refusal.class, () -> shells.open(new Caller(UUID.fromString(tenant), null, Role.AUDITOR), id));
        String failed = read(as(member).body(Map.of("packages", List.of("noSuchPackageAnywhere"))).post("/v1/sessions?wait=60")
                .then().statusCode(201).extract().asString(), "id");
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> shells.open(new Caller(UUID.fromString(tenant), null, Role.MEMBER), failed));
        assertTrue(refused.getMessage().contains("is failed"), refused.getMessage());
    }
}

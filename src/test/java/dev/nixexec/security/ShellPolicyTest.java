package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.Api;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 3: an attached shell is built from the tenant's policy as it is at attach, as an
 * exec in the session is, and a policy narrowed below an open shell closes it (4006). The attacks
 * as the review ran them: a shell that kept the network after an operator removed it, and one that
 * ran 30 processes with {@code ulimit -t 3600} under {@code max_pids=8}, {@code max_cpu_seconds=2}
 * and {@code max_timeout_seconds=5}.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ShellPolicyTest {

    @TestHTTPResource("/")
    URI base;

    static String session(String member, Map<String, Object> body) {
        return read(as(member).body(body).post("/v1/sessions?wait=120").then().statusCode(201).extract().asString(), "id");
    }

    static void patchPolicy(String tenant, Map<String, Object> policy) {
        as(Api.ADMIN).body(Map.of("policy", policy)).patch("/v1/admin/tenants/" + tenant).then().statusCode(200);
    }

    @Test
    void aSessionWhoseNetworkThePolicyDroppedTakesNoShell() {
        String tenant = tenant("shell-net", Map.of("network", true));
        String member = key(tenant, "member");
        String session = session(member, Map.of("network", "full"));
        patchPolicy(tenant, Map.of("network", false));
        assertEquals(403, ShellWire.refusal(base, member, session));
    }

    @Test
    void aShellRunsUnderThePolicysCapsOfNow() throws Exception {
        String tenant = tenant("shell-caps");
        String member = key(tenant, "member");
        String session = session(member, Map.of());
        patchPolicy(tenant, Map.of("max_pids", 8, "max_cpu_seconds", 2, "max_timeout_seconds", 5));
        ShellWire shell = ShellWire.attach(base, member, session);
        shell.type("echo cpu-$(ulimit -t); ulimit -t 3600 || echo raise-refused-$((6*7))\n");
        shell.await("cpu-2");
        shell.await("raise-refused-42");
        assertEquals("4002 time limit: 5s", shell.closedWithin(30));
    }

    @Test
    void aShellCannotRunMoreProcessesThanThePolicyAllows() throws Exception {
        String tenant = tenant("shell-pids");
        String member = key(tenant, "member");
        String session = session(member, Map.of());
        patchPolicy(tenant, Map.of("max_pids", 8));
        ShellWire shell = ShellWire.attach(base, member, session);
        shell.type("for i in $(seq 30); do sleep 60 & done; echo spawned-$((6*7))\n");
        assertEquals("4003 limit: processes", shell.closedWithin(30));
    }

    @Test
    void narrowingThePolicyClosesAnOpenShell() throws Exception {
        String tenant = tenant("shell-narrow", Map.of("network", true));
        String member = key(tenant, "member");
        String session = session(member, Map.of("network", "full"));
        ShellWire shell = ShellWire.attach(base, member, session);
        shell.type("echo up-$((6*7))\n");
        shell.await("up-42");
        patchPolicy(tenant, Map.of("network", false));
        assertEquals("4006 the tenant's policy changed: network is not allowed", shell.closedWithin(15));
    }

    @Test
    void aLowerCapClosesAnOpenShell() throws Exception {
        String tenant = tenant("shell-cap");
        String member = key(tenant, "member");
        String session = session(member, Map.of());
        ShellWire shell = ShellWire.attach(base, member, session);
        shell.type("echo up-$((6*7))\n");
        shell.await("up-42");
        patchPolicy(tenant, Map.of("max_pids", 8));
        assertEquals("4006 the tenant's policy changed: max_pids is now 8", shell.closedWithin(15));
    }
}

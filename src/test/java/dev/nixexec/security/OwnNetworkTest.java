package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 1: a job, or a shell, given the network shared the worker's network namespace, so
 * it reached every port on the host's 127.0.0.1 (the service itself: in local mode, as the
 * operator) and saw the host's Unix sockets. Now it has a namespace of its own with a user-mode
 * stack in front. Only loopback is tried here (this test's service), so nothing leaves the host
 * even if it regressed; what a networked run does reach is {@link OwnInternetIT}'s.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class OwnNetworkTest {

    @TestHTTPResource("/")
    URI base;

    @Test
    void aNetworkedJobCannotReachTheServiceOrSeeTheHostsSockets() throws Exception {
        String member = key(tenant("own-network", Map.of("network", true)), "member");
        String code = """
                import errno, socket
                def tcp(host):
                    try:
                        socket.create_connection((host, %d), timeout=5).close()
                        return "reached"
                    except OSError as e:
                        return errno.errorcode.get(e.errno, str(e))
                print("127.0.0.1", tcp("127.0.0.1"))
                print("10.0.2.2", tcp("10.0.2.2"))
                print("interfaces", sorted(line.split(":")[0].strip() for line in open("/proc/net/dev") if ":" in line))
                print("postgres sockets", sum(".s.PGSQL" in line for line in open("/proc/net/unix")))
                """.formatted(base.getPort());
        String job = as(member).body(Map.of("language", "python", "code", code, "network", "full"))
                .post("/v1/jobs?wait=120").then().statusCode(200).extract().asString();
        // the attack is real: the host's namespace has the embedded database's socket
        assertTrue(Files.readString(Path.of("/proc/net/unix")).contains(".s.PGSQL"), "the host lists its database socket");
        assertEquals("""
                127.0.0.1 ECONNREFUSED
                10.0.2.2 ENETUNREACH
                interfaces ['lo', 'tap0']
                postgres sockets 0
                """, read(job, "stdout"), job);
    }

    /** What the sandbox gave a run without network it still gives a run with: its uid, seccomp filter and limits. */
    @Test
    void aNetworkedJobKeepsItsUidFilterAndLimits() {
        String member = key(tenant("own-network-limits", Map.of("network", true)), "member");
        String code = """
                import os
                status = dict(line.split(":", 1) for line in open("/proc/self/status"))
                print(os.getuid(), status["Seccomp"].strip(), status["NoNewPrivs"].strip(), flush=True)
                hog = b"x" * (200 * 1024 * 1024)
                """;
        String job = as(member).body(Map.of("language", "python", "code", code, "network", "full",
                "limits", Map.of("memory", "64MiB"))).post("/v1/jobs?wait=120").then().statusCode(200).extract().asString();
        assertEquals("1000 2 1\n", read(job, "stdout"), job);
        assertEquals("memory", read(job, "limit_hit"), job);
    }

    @Test
    void aNetworkedShellHasItsOwnNamespaceToo() throws Exception {
        String member = key(tenant("own-network-shell", Map.of("network", true)), "member");
        String session = read(as(member).body(Map.of("network", "full")).post("/v1/sessions?wait=120")
                .then().statusCode(201).extract().asString(), "id");
        ShellWire shell = ShellWire.attach(base, member, session);
        // builtins only: the shell's environment is the session's
        shell.type("n=0; while read -r l; do case $l in tap0:*) n=$((n+1));; esac; done < /proc/net/dev; echo tap-$n; "
                + "(exec 3<>/dev/tcp/127.0.0.1/" + base.getPort()
                + ") 2>/dev/null && echo service-re''ached || echo service-un''reachable\n");
        shell.await("tap-1");
        shell.await("service-unreachable");
    }
}

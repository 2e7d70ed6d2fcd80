package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.TestInternet;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 1: a networked job reaches the internet, and only the internet. Its traffic
 * leaves from a namespace of {@link TestInternet}, so nothing here reaches the host's own network
 * even if the sandbox regressed: the private, link-local and loopback servers it must not reach
 * exist in that test internet and would answer.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(OwnInternetIT.BehindTestInternet.class)
class OwnInternetIT {

    public static class BehindTestInternet implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(TestInternet.class));
        }
    }

    /** Each target's answer, one line each: the server's first line, or the error's name. */
    static final String PROBE = """
            import errno, socket
            def tcp(host):
                try:
                    s = socket.create_connection((host, 8000), timeout=5)
                    s.sendall(b"GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n")
                    reply = s.makefile().read()
                    return reply.splitlines()[-1]
                except OSError as e:
                    return errno.errorcode.get(e.errno, str(e))
            for host in ["%s", "web.example.test", "%s", "%s", "%s", "10.0.2.2", "127.0.0.1"]:
                print(host, tcp(host))
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(5)
            u.sendto(b"ping", ("%s", 7007))
            print("udp", u.recv(64).decode())
            """.formatted(TestInternet.WEB, TestInternet.ALLOWED_PRIVATE, TestInternet.PRIVATE, TestInternet.METADATA,
            TestInternet.WEB);

    @ConfigProperty(name = "nixexec-test.internet.egress")
    String egress;

    @Test
    void aNetworkedJobReachesTheInternetAndNothingElse() throws Exception {
        String member = key(tenant("own-internet", Map.of("network", true)), "member");
        String job = as(member).body(Map.of("language", "python", "code", PROBE, "network", "full"))
                .post("/v1/jobs?wait=120").then().statusCode(200).extract().asString();
        assertEquals("succeeded", read(job, "status"), job);
        assertEquals(String.join("\n",
                // outbound TCP, by address and by name (DNS over UDP to the test's own name server)
                TestInternet.WEB + " hello from " + TestInternet.WEB,
                "web.example.test hello from " + TestInternet.WEB,
                // a private range the operator listed (nixexec.sandbox.network-allowed-ranges)
                TestInternet.ALLOWED_PRIVATE + " hello from " + TestInternet.ALLOWED_PRIVATE,
                // private and link-local (cloud metadata) ranges: refused by the kernel in the run's namespace
                TestInternet.PRIVATE + " EACCES",
                TestInternet.METADATA + " EACCES",
                // the user-mode stack's way to its host's loopback, which answers there, is closed
                "10.0.2.2 ENETUNREACH",
                // the run's own loopback has nothing listening
                "127.0.0.1 ECONNREFUSED",
                "udp PING") + "\n", read(job, "stdout"), job);
        // the relay's own sandbox unmounts its old root: that must not reach the node's mounts
        // (it once took every `ip netns` mount of the node with it)
        assertEquals(true, Files.readString(Path.of("/proc/self/mountinfo")).contains("/run/netns/" + egress + " "),
                "the egress namespace is still mounted on the node");
    }
}

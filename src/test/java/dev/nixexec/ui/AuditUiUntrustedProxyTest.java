package dev.nixexec.ui;

import static dev.nixexec.ui.AuditUiTest.csrf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.nixexec.testing.Api;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Forwarding on, but the request does not come from the trusted proxy: whoever sends the
 * forwarded headers themselves must not pass for the public site. The node trusts 127.0.0.1
 * ({@link ApiOnlyNode}, as {@link AuditUiBehindProxyTest} does); these requests come from
 * 127.0.0.2, another local address, as another local user's process or a job given the network
 * could send them.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class AuditUiUntrustedProxyTest {

    /** On Linux all of 127.0.0.0/8 is this host's. */
    private static final InetAddress UNTRUSTED = address("127.0.0.2");

    @TestHTTPResource("/")
    URI base;

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request with the headers nginx would set, from the untrusted address. */
    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        HttpClient client = HttpClient.newBuilder().localAddress(UNTRUSTED).build();
        return client.send(request.header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "audit.example")
                .header("X-Forwarded-For", "203.0.113.7").build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI at(String path) {
        return URI.create("http://" + ApiOnlyNode.TRUSTED_PROXY + ":" + base.getPort() + path);
    }

    @Test
    void forwardedHeadersFromAnUntrustedAddressAreIgnored() throws Exception {
        HttpResponse<String> form = send(HttpRequest.newBuilder(at("/ui/login")).GET());
        assertEquals(200, form.statusCode());
        String cookie = form.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(SignInResource.LOGIN_COOKIE + "=")).findFirst().orElseThrow();
        assertFalse(cookie.contains("Secure"), cookie);
        String body = "csrf=" + URLEncoder.encode(csrf(form.body()), StandardCharsets.UTF_8) + "&key="
                + URLEncoder.encode(Api.ADMIN, StandardCharsets.UTF_8);
        HttpResponse<String> signIn = send(HttpRequest.newBuilder(at("/ui/login"))
                .header("Origin", AuditUiBehindProxyTest.SITE).header("Cookie", cookie.split(";", 2)[0])
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertEquals(403, signIn.statusCode(), signIn.body());
    }
}

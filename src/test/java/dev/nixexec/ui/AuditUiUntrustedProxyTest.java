package dev.nixexec.ui;

import static dev.nixexec.ui.AuditUiTest.csrf;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.nixexec.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Forwarding on, but the request does not come from a trusted proxy: whoever sends the forwarded
 * headers themselves must not pass for the public site.
 */
@QuarkusTest
@TestProfile(AuditUiUntrustedProxyTest.OtherProxyTrusted.class)
class AuditUiUntrustedProxyTest {

    public static class OtherProxyTrusted implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.node.role", "api",
                    "quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-x-forwarded", "true",
                    "quarkus.http.proxy.enable-forwarded-host", "true",
                    "quarkus.http.proxy.trusted-proxies", "192.0.2.10");
        }
    }

    @Test
    void forwardedHeadersFromAnUntrustedAddressAreIgnored() {
        Response form = AuditUiBehindProxyTest.viaProxy().get("/ui/login");
        form.then().statusCode(200);
        String cookie = AuditUiBehindProxyTest.setCookie(form, SignInResource.LOGIN_COOKIE);
        assertFalse(cookie.contains("Secure"), cookie);
        AuditUiBehindProxyTest.viaProxy().header("Origin", AuditUiBehindProxyTest.SITE)
                .cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .formParam("csrf", csrf(form.asString())).formParam("key", Api.ADMIN).post("/ui/login")
                .then().statusCode(403);
    }
}

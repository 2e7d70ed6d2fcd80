package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ws.rs.core.NewCookie;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The sign-in forms' Origin rule and cookie attributes, without a server (AuditUiTest has them over HTTP). */
class SignInChecksTest {

    private static final URI SELF = URI.create("https://audit.example/");

    @Test
    void noOriginOrThisSiteIsAccepted() {
        assertTrue(SignInResource.sameOrigin(null, SELF), "a client that sends no Origin is not a browser on another site");
        assertTrue(SignInResource.sameOrigin("https://audit.example", SELF));
        assertTrue(SignInResource.sameOrigin("HTTPS://Audit.Example", SELF));
        assertTrue(SignInResource.sameOrigin("http://127.0.0.1:8081", URI.create("http://127.0.0.1:8081/")));
    }

    @Test
    void anotherHostSchemePortOrAnOpaqueOriginIsRefused() {
        assertFalse(SignInResource.sameOrigin("https://evil.example", SELF));
        assertFalse(SignInResource.sameOrigin("http://audit.example", SELF), "the proxy's https origin is not http");
        assertFalse(SignInResource.sameOrigin("https://audit.example:8443", SELF));
        assertFalse(SignInResource.sameOrigin("null", SELF));
        assertFalse(SignInResource.sameOrigin("::not a uri::", SELF));
        assertFalse(SignInResource.sameOrigin("https://audit.example", URI.create("file:/x")), "no host of our own");
    }

    @Test
    void cookiesAreHttpOnlyStrictAndSecureOnlyOverHttps() {
        NewCookie session = SignInResource.cookie(UiAccess.SESSION_COOKIE, "t", "/ui", true, -1);
        assertTrue(session.isHttpOnly());
        assertTrue(session.isSecure());
        assertEquals(NewCookie.SameSite.STRICT, session.getSameSite());
        assertEquals("/ui", session.getPath());
        assertEquals(-1, session.getMaxAge(), "no Max-Age: gone when the browser closes");
        NewCookie expired = SignInResource.cookie(SignInResource.LOGIN_COOKIE, "", "/ui/login", false, 0);
        assertFalse(expired.isSecure());
        assertTrue(expired.isHttpOnly());
        assertEquals(0, expired.getMaxAge());
    }
}

package dev.nixexec.ui;

import static dev.nixexec.ui.AuditUiTest.csrf;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Api;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;

/**
 * The audit UI behind a TLS reverse proxy on the same host (docs/operations.md): with the proxy
 * settings and the proxy trusted, the browser's {@code https://audit.example} is this site, so
 * sign-in and sign-out work and the session cookie is {@code Secure}. The proxy settings are
 * {@link ApiOnlyNode}'s.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
class AuditUiBehindProxyTest {

    static final String SITE = "https://audit.example";

    /** A request as nginx passes it on for the browser at {@link #SITE}. */
    static RequestSpecification viaProxy() {
        return given().redirects().follow(false).header("X-Forwarded-Proto", "https")
                .header("X-Forwarded-Host", "audit.example").header("X-Forwarded-For", "203.0.113.7");
    }

    static String setCookie(Response response, String name) {
        return response.getHeaders().getValues("Set-Cookie").stream().filter(c -> c.startsWith(name + "="))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + " cookie in " + response.getHeaders()));
    }

    @Test
    void signInAndOutThroughTheProxy() {
        Response form = viaProxy().get("/ui/login");
        form.then().statusCode(200);
        assertTrue(setCookie(form, SignInResource.LOGIN_COOKIE).contains("Secure"), setCookie(form, SignInResource.LOGIN_COOKIE));
        Response signedIn = viaProxy().header("Origin", SITE).cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .formParam("csrf", csrf(form.asString())).formParam("key", Api.ADMIN).post("/ui/login");
        signedIn.then().statusCode(303);
        String session = setCookie(signedIn, UiAccess.SESSION_COOKIE);
        assertTrue(session.contains("Secure") && session.contains("HttpOnly") && session.contains("SameSite=Strict"), session);

        String token = signedIn.getCookie(UiAccess.SESSION_COOKIE);
        String page = viaProxy().cookie(UiAccess.SESSION_COOKIE, token).get("/ui/jobs").then().statusCode(200).extract().asString();
        viaProxy().header("Origin", SITE).cookie(UiAccess.SESSION_COOKIE, token).formParam("csrf", csrf(page))
                .post("/ui/logout").then().statusCode(303);
        viaProxy().cookie(UiAccess.SESSION_COOKIE, token).get("/ui/jobs").then().statusCode(303);
    }

    @Test
    void anotherSiteIsStillRefused() {
        Response form = viaProxy().get("/ui/login");
        viaProxy().header("Origin", "https://evil.example").cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .formParam("csrf", csrf(form.asString())).formParam("key", Api.ADMIN).post("/ui/login")
                .then().statusCode(403);
        // the proxy's own address without https is another origin too
        viaProxy().header("Origin", "http://audit.example").cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .formParam("csrf", csrf(form.asString())).formParam("key", Api.ADMIN).post("/ui/login")
                .then().statusCode(403);
    }
}

package dev.nixexec.ui;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The audit UI over HTTP: sign-in, cookies, CSRF, escaping, roles and tenant scoping, with real jobs. */
@QuarkusTest
@WithTestResource(NixSpy.class)
public class AuditUiTest {

    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    String tenantA;
    String adminA;
    String memberA;
    String auditorA;
    String memberB;

    static String run(String key, Map<String, Object> body) {
        String id = read(as(key).body(body).post("/v1/jobs?wait=60").then().extract().asString(), "id");
        as(key).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200);
        return id;
    }

    /** A signed-in browser: its session cookie and the CSRF token its pages carry. */
    public record Browser(String session, String csrf) {
        public RequestSpecification request() {
            return given().redirects().follow(false).cookie(UiAccess.SESSION_COOKIE, session);
        }
    }

    public static Browser signIn(String key) {
        Response form = given().get("/ui/login");
        form.then().statusCode(200);
        String loginCookie = form.getCookie(SignInResource.LOGIN_COOKIE);
        Response signedIn = given().redirects().follow(false).cookie(SignInResource.LOGIN_COOKIE, loginCookie)
                .formParam("csrf", csrf(form.asString())).formParam("key", key).post("/ui/login");
        signedIn.then().statusCode(303).header("Location", containsString("/ui/jobs"));
        String session = signedIn.getCookie(UiAccess.SESSION_COOKIE);
        String page = given().cookie(UiAccess.SESSION_COOKIE, session).get("/ui/jobs").then().statusCode(200).extract().asString();
        return new Browser(session, csrf(page));
    }

    static String csrf(String html) {
        Matcher m = CSRF.matcher(html);
        assertTrue(m.find(), "no CSRF field in\n" + html);
        return m.group(1);
    }

    @BeforeEach
    void keys() {
        tenantA = tenant("ui-a");
        adminA = key(tenantA, "admin");
        memberA = key(tenantA, "member");
        auditorA = key(tenantA, "auditor");
        memberB = key(tenant("ui-b"), "member");
    }

    @Test
    void pagesNeedASession() {
        given().redirects().follow(false).get("/ui/jobs").then().statusCode(303).header("Location", containsString("/ui/login"));
        given().redirects().follow(false).cookie(UiAccess.SESSION_COOKIE, "made-up").get("/ui/fleet")
                .then().statusCode(303).header("Location", containsString("/ui/login"));
        given().get("/ui/jobs/" + UUID.randomUUID() + "/events").then().statusCode(401);
    }

    @Test
    void theSessionCookieIsHttpOnlyStrictAndNotTheKey() {
        Response form = given().get("/ui/login");
        String loginCookie = form.getCookie(SignInResource.LOGIN_COOKIE);
        Response signedIn = given().redirects().follow(false).cookie(SignInResource.LOGIN_COOKIE, loginCookie)
                .formParam("csrf", csrf(form.asString())).formParam("key", auditorA).post("/ui/login");
        String setCookie = signedIn.getHeaders().getValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(UiAccess.SESSION_COOKIE + "=")).findFirst().orElseThrow();
        assertTrue(setCookie.contains("HttpOnly"), setCookie);
        assertTrue(setCookie.contains("SameSite=Strict"), setCookie);
        assertTrue(setCookie.contains("Path=/ui"), setCookie);
        assertFalse(setCookie.contains(auditorA.substring(3)), "the key itself must not be in the cookie");
        assertFalse(signedIn.getHeader("Location").contains(auditorA), "nor in the URL");
    }

    @io.quarkus.test.common.http.TestHTTPResource("/")
    java.net.URL base;

    @Test
    void aSameOriginPostIsAccepted() {
        Response form = given().get("/ui/login");
        String origin = base.getProtocol() + "://" + base.getHost() + ":" + base.getPort();
        given().redirects().follow(false).cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .header("Origin", origin).formParam("csrf", csrf(form.asString())).formParam("key", auditorA)
                .post("/ui/login").then().statusCode(303);
    }

    /** Without the proxy settings (the default), forwarded headers are anyone's to send: ignored. */
    @Test
    void forwardedHeadersAreNotTrustedByDefault() {
        Response form = AuditUiBehindProxyTest.viaProxy().get("/ui/login");
        String cookie = AuditUiBehindProxyTest.setCookie(form, SignInResource.LOGIN_COOKIE);
        assertFalse(cookie.contains("Secure"), cookie);
        AuditUiBehindProxyTest.viaProxy().header("Origin", AuditUiBehindProxyTest.SITE)
                .cookie(SignInResource.LOGIN_COOKIE, form.getCookie(SignInResource.LOGIN_COOKIE))
                .formParam("csrf", csrf(form.asString())).formParam("key", auditorA).post("/ui/login")
                .then().statusCode(403);
    }

    @Test
    void signInNeedsTheFormsTokenAndALiveKey() {
        Response form = given().get("/ui/login");
        String loginCookie = form.getCookie(SignInResource.LOGIN_COOKIE);
        String token = csrf(form.asString());
        // no cookie (a cross-site post carries none under SameSite=Strict), or a token that does not match it
        given().formParam("csrf", token).formParam("key", auditorA).post("/ui/login").then().statusCode(403);
        given().cookie(SignInResource.LOGIN_COOKIE, loginCookie).formParam("csrf", "x" + token).formParam("key", auditorA)
                .post("/ui/login").then().statusCode(403);
        given().cookie(SignInResource.LOGIN_COOKIE, loginCookie).header("Origin", "https://evil.example")
                .formParam("csrf", token).formParam("key", auditorA).post("/ui/login").then().statusCode(403);
        given().cookie(SignInResource.LOGIN_COOKIE, loginCookie).formParam("csrf", token).formParam("key", "nx_wrong")
                .post("/ui/login").then().statusCode(401).body(containsString("unknown or revoked"));
    }

    @Test
    void outputAndCodeAreShownAsText() {
        String id = run(memberA, Map.of("language", "bash",
                "code", "echo '<script>alert(1)</script>'; echo '<b>bold</b>' >&2"));
        Browser auditor = signIn(auditorA);
        String page = auditor.request().get("/ui/jobs/" + id).then().statusCode(200)
                .header("Content-Security-Policy", containsString("script-src 'self'"))
                .extract().asString();
        assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
        assertFalse(page.contains("<script>alert"), "raw script in\n" + page);
        assertFalse(page.contains("<b>bold"), page);
        assertTrue(page.contains("&lt;b&gt;bold&lt;/b&gt;"), page);
    }

    @Test
    void truncatedOutputIsMarkedOnTheJobPage() {
        String small = read(as(ADMIN).body(Map.of("name", "ui-small-" + UUID.randomUUID().toString().substring(0, 8),
                "policy", Map.of("max_output_bytes", 1000))).post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
        // about 6 KB on stdout, a few bytes on stderr
        String id = run(key(small, "member"), Map.of("language", "bash",
                "code", "for ((i = 0; i < 600; i++)); do echo line-$i; done; echo short >&2"));
        as(key(small, "member")).get("/v1/jobs/" + id).then().body(json("stdout_truncated", equalTo(true)));
        String page = signIn(key(small, "auditor")).request().get("/ui/jobs/" + id).then().statusCode(200).extract().asString();
        assertTrue(page.contains("class=\"note truncated\" id=\"stdout-note\""), page);
        assertTrue(page.matches("(?s).*truncated: \\d+ bytes were printed.*"), page);
        assertTrue(page.matches("(?s).*\\[\\.\\.\\. \\d+ bytes truncated \\.\\.\\.\\].*"), "the gap mark in\n" + page);
        assertTrue(page.contains("line-0") && page.contains("line-599"), "the first and last parts are kept");
        assertTrue(page.contains("class=\"note\" id=\"stderr-note\""), "stderr was not truncated");
    }

    @Test
    void theJobPageShowsTheRecordAndTheAuditTrail() {
        String id = run(memberA, Map.of("language", "bash", "code", "echo hi; exit 3", "env", Map.of("API_TOKEN", "s3cret-value")));
        Browser auditor = signIn(auditorA);
        String page = auditor.request().get("/ui/jobs/" + id).then().statusCode(200).extract().asString();
        assertTrue(page.contains("/nix/store/"), "store path");
        assertTrue(page.contains("nixpkgs revision"));
        assertTrue(page.contains("API_TOKEN"), "env name");
        assertFalse(page.contains("s3cret-value"), "an auditor must not see env values");
        assertTrue(page.contains("id=\"audit-trail\""));
        for (String kind : new String[] {"submitted", "claimed", "environment", "started", "finished"}) {
            assertTrue(page.contains("<td>" + kind + "</td>"), kind + " in the audit trail");
        }
        assertTrue(Pattern.compile("<dt>Exit code</dt><dd>3</dd>").matcher(page).find(), page);

        String asAdmin = signIn(adminA).request().get("/ui/jobs/" + id).then().statusCode(200).extract().asString();
        assertTrue(asAdmin.contains("s3cret-value"), "an admin sees env values");

        String asMember = signIn(memberA).request().get("/ui/jobs/" + id).then().statusCode(200).extract().asString();
        assertFalse(asMember.contains("s3cret-value"));
        assertFalse(asMember.contains("id=\"audit-trail\""), "members get no audit trail");
        signIn(memberA).request().get("/ui/fleet").then().statusCode(403);
    }

    @Test
    void anotherTenantsJobIsNotFound() {
        String id = run(memberA, Map.of("language", "bash", "code", "echo mine"));
        Browser other = signIn(memberB);
        other.request().get("/ui/jobs/" + id).then().statusCode(404);
        other.request().get("/ui/jobs/" + id + "/events").then().statusCode(404);
        String list = other.request().get("/ui/jobs").then().statusCode(200).extract().asString();
        assertFalse(list.contains(id));
    }

    @Test
    void filtersAndPaging() {
        String withJq = run(memberA, Map.of("language", "bash", "code", "jq --version", "packages", java.util.List.of("jq")));
        String plain = run(memberA, Map.of("language", "bash", "code", "echo plain"));
        String python = run(memberA, Map.of("language", "python", "code", "print(1)"));
        Browser auditor = signIn(auditorA);
        String byPackage = auditor.request().queryParam("package", "jq").get("/ui/jobs").then().statusCode(200).extract().asString();
        assertTrue(byPackage.contains(withJq) && !byPackage.contains(plain) && !byPackage.contains(python), byPackage);
        String byLanguage = auditor.request().queryParam("language", "python").get("/ui/jobs").then().extract().asString();
        assertTrue(byLanguage.contains(python) && !byLanguage.contains(plain));
        String keyId = read(as(auditorA).get("/v1/audit?job_id=" + plain).then().statusCode(200)
                .extract().asString(), "items.find { it.kind == 'submitted' }.key_id");
        String byKey = auditor.request().queryParam("key", keyId).get("/ui/jobs").then().extract().asString();
        assertTrue(byKey.contains(plain) && byKey.contains(python));
        String byOtherKey = auditor.request().queryParam("key", UUID.randomUUID().toString()).get("/ui/jobs").then().extract().asString();
        assertFalse(byOtherKey.contains(plain));
        String node = read(as(memberA).get("/v1/jobs/" + plain).then().extract().asString(), "node_id");
        assertTrue(auditor.request().queryParam("node", node).get("/ui/jobs").asString().contains(plain));
        assertFalse(auditor.request().queryParam("node", "no-such-node").get("/ui/jobs").asString().contains(plain));
        assertFalse(auditor.request().queryParam("since", "2999-01-01T00:00").get("/ui/jobs").asString().contains(plain));
        auditor.request().queryParam("since", "yesterday").get("/ui/jobs").then().statusCode(400)
                .body(containsString("a time like"));
        auditor.request().queryParam("status", "<script>").get("/ui/jobs").then().statusCode(400)
                .body(not(containsString("<script>")));
        auditor.request().queryParam("package", "'; drop table jobs; --").get("/ui/jobs").then().statusCode(200)
                .body(containsString("No jobs match"));

    }

    @Test
    void keysetPaging() {
        // a running cap of 0 keeps the jobs queued: 51 cheap rows, one more than a page
        String stuck = read(as(ADMIN).body(Map.of("name", "ui-paging-" + UUID.randomUUID().toString().substring(0, 8),
                "policy", Map.of("max_running", 0))).post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
        String member = key(stuck, "member");
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 51; i++) {
            ids.add(read(as(member).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then().statusCode(201)
                    .extract().asString(), "id"));
        }
        try {
            Browser browser = signIn(member);
            String first = browser.request().queryParam("status", "queued").get("/ui/jobs").then().statusCode(200).extract().asString();
            Matcher next = Pattern.compile("href=\"([^\"]+)\" id=\"next-page\"").matcher(first);
            assertTrue(next.find(), first);
            String second = browser.request().get(next.group(1).replace("&amp;", "&")).then().statusCode(200).extract().asString();
            assertTrue(second.contains("status=queued"), "the filter is kept on the next page");
            assertFalse(second.contains("id=\"next-page\""));
            for (String id : ids) {
                assertTrue(first.contains(id) ^ second.contains(id), id + " on exactly one page");
            }
            assertTrue(second.contains(ids.get(0)), "oldest last");
        } finally {
            ids.forEach(id -> as(member).post("/v1/jobs/" + id + "/cancel").then().statusCode(202));
        }
    }

    @Test
    void signOutNeedsTheTokenAndEndsTheSession() {
        Browser auditor = signIn(auditorA);
        auditor.request().formParam("csrf", "wrong").post("/ui/logout").then().statusCode(403);
        auditor.request().get("/ui/jobs").then().statusCode(200);
        auditor.request().formParam("csrf", auditor.csrf()).post("/ui/logout").then().statusCode(303);
        auditor.request().get("/ui/jobs").then().statusCode(303);
    }

    @Test
    void revokingTheKeyEndsItsSessions() {
        var made = as(ADMIN).body(Map.of("role", "auditor")).post("/v1/admin/tenants/" + tenantA + "/keys").then().extract();
        String keyId = made.path("id");
        String secret = made.path("key");
        Browser auditor = signIn(secret);
        auditor.request().get("/ui/jobs").then().statusCode(200);
        as(ADMIN).delete("/v1/admin/keys/" + keyId).then().statusCode(204);
        auditor.request().get("/ui/jobs").then().statusCode(303);
    }

    @Test
    void theFleetPageDrawsCharts() {
        run(memberA, Map.of("language", "bash", "code", "true"));
        run(memberA, Map.of("language", "bash", "code", "exit 1"));
        // the bootstrap key is an operator key: it signs in, and the node list is for operators, as in the API
        String page = signIn(ADMIN).request().get("/ui/fleet").then().statusCode(200).extract().asString();
        assertTrue(page.contains("id=\"nodes\""), "operators see the nodes");
        String asAdmin = signIn(adminA).request().get("/ui/fleet").then().statusCode(200).extract().asString();
        assertFalse(asAdmin.contains("id=\"nodes\""), "a tenant's admin does not");
        assertTrue(asAdmin.contains("<rect class=\"c-succeeded\""), asAdmin);
        assertTrue(asAdmin.contains("<rect class=\"c-failed\""), asAdmin);
        assertTrue(asAdmin.contains("<polyline class=\"line c-p50\""), asAdmin);
        String asAuditor = signIn(auditorA).request().queryParam("hours", "24").get("/ui/fleet").then().statusCode(200)
                .extract().asString();
        assertFalse(asAuditor.contains("id=\"nodes\""), "nor does an auditor");
        assertTrue(asAuditor.contains("<rect class=\"c-succeeded\""));
    }

    @Test
    void theUiEventStreamFollowsAJob() {
        String id = run(memberA, Map.of("language", "bash", "code", "echo streamed"));
        String stream = signIn(auditorA).request().get("/ui/jobs/" + id + "/events").then().statusCode(200)
                .extract().asString();
        assertTrue(stream.contains("event:stdout") && stream.contains("streamed") && stream.contains("event:result"), stream);
        assertEquals(200, signIn(auditorA).request().get("/ui/assets/ui.js").statusCode());
        // a dot segment is refused, never resolved
        signIn(auditorA).request().get("/ui/assets/../application.properties").then().statusCode(equalTo(400));
    }
}

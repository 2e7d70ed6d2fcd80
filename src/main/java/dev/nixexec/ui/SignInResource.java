package dev.nixexec.ui;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Sign-in and sign-out of the audit UI ({@code /ui/login}, {@code /ui/logout}), and {@code /ui}
 * itself. The two POSTs are the UI's only state-changing forms: each checks a CSRF token and the
 * {@code Origin}.
 */
@Path("/ui")
public class SignInResource {

    static final String LOGIN_COOKIE = "nx_ui_login";

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance login(String csrf, String error);
    }

    private final NixExecConfig config;
    private final UiSessions sessions;
    private final UiAccess access;
    private final Tenants tenants;

    public SignInResource(NixExecConfig config, UiSessions sessions, UiAccess access, Tenants tenants) {
        this.config = config;
        this.sessions = sessions;
        this.access = access;
        this.tenants = tenants;
    }

    @GET
    public Response home() {
        return UiResponses.seeOther("/ui/jobs");
    }

    @GET
    @Path("login")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response loginPage(@CookieParam(UiAccess.SESSION_COOKIE) String token, @Context UriInfo uri) {
        if (!config.auth().enabled() || sessions.find(token).isPresent()) {
            return UiResponses.seeOther("/ui/jobs");
        }
        return loginForm(200, null, uri);
    }

    /**
     * The key is checked once and then forgotten: the session row holds the key's id, the cookie a
     * random token. The login form's CSRF token is a double-submit cookie scoped to this path.
     */
    @POST
    @Path("login")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response login(@FormParam("key") String key, @FormParam("csrf") String csrf,
            @CookieParam(LOGIN_COOKIE) String expectedCsrf, @HeaderParam("Origin") String origin,
            @Context UriInfo uri) {
        if (!UiSessions.sameToken(expectedCsrf, csrf) || !sameOrigin(origin, uri.getBaseUri())) {
            return loginForm(403, "The sign-in form expired or came from another site; please sign in again.", uri);
        }
        Optional<Caller> caller = tenants.authenticate(key == null ? null : key.strip());
        if (caller.isEmpty()) {
            return loginForm(401, "That API key is unknown or revoked.", uri);
        }
        UiSessions.Started started = sessions.start(caller.get());
        boolean secure = secure(uri);
        return Response.seeOther(URI.create("/ui/jobs"))
                .cookie(cookie(UiAccess.SESSION_COOKIE, started.token(), "/ui", secure, -1),
                        cookie(LOGIN_COOKIE, "", "/ui/login", secure, 0))
                .build();
    }

    @POST
    @Path("logout")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RunOnVirtualThread
    public Response logout(@CookieParam(UiAccess.SESSION_COOKIE) String token, @FormParam("csrf") String csrf,
            @HeaderParam("Origin") String origin, @Context UriInfo uri) {
        UiSessions.Session session = access.signedIn(token);
        if (!UiSessions.sameToken(session.csrf(), csrf) || !sameOrigin(origin, uri.getBaseUri())) {
            throw UiResponses.forbidden("the form's CSRF token does not match this session");
        }
        if (token != null) {
            sessions.end(token);
        }
        return Response.seeOther(URI.create("/ui/login"))
                .cookie(cookie(UiAccess.SESSION_COOKIE, "", "/ui", secure(uri), 0)).build();
    }

    @ServerExceptionMapper
    public Response webResponse(WebApplicationException e) {
        return e.getResponse();
    }

    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return UiResponses.refused(e);
    }

    private Response loginForm(int status, String error, UriInfo uri) {
        String csrf = sessions.randomToken();
        return Response.status(status).entity(Templates.login(csrf, error))
                .cookie(cookie(LOGIN_COOKIE, csrf, "/ui/login", secure(uri), 3600)).build();
    }

    /** Behind a TLS proxy the request is https only when quarkus.http.proxy.* trusts that proxy. */
    private static boolean secure(UriInfo uri) {
        return "https".equals(uri.getRequestUri().getScheme());
    }

    /** HttpOnly and SameSite=Strict always; Secure when the page came over HTTPS; maxAge 0 expires it. */
    static NewCookie cookie(String name, String value, String path, boolean secure, int maxAge) {
        return new NewCookie.Builder(name).value(value).path(path).httpOnly(true)
                .sameSite(NewCookie.SameSite.STRICT).secure(secure).maxAge(maxAge).build();
    }

    /**
     * A browser sends Origin on a POST; when it does, it must be this site. Behind a TLS proxy the
     * base URI is the public one only when quarkus.http.proxy.* trusts that proxy (docs/operations.md).
     */
    static boolean sameOrigin(String origin, URI self) {
        if (origin == null) {
            return true;
        }
        try {
            URI other = URI.create(origin);
            return self.getHost() != null && self.getHost().equalsIgnoreCase(other.getHost())
                    && self.getPort() == other.getPort() && self.getScheme().equalsIgnoreCase(other.getScheme());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}

package dev.nixexec.ui;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import java.util.Optional;
import java.util.UUID;

/**
 * Who is asking, for every {@code /ui} page: the session behind the cookie, or in local mode (no
 * sign-in) the local operator. Pages check the caller's role themselves; this only says who it is.
 */
@ApplicationScoped
public class UiAccess {

    static final String SESSION_COOKIE = "nx_ui_session";

    private final NixExecConfig config;
    private final UiSessions sessions;
    private final Tenants tenants;
    /** Local mode has no sessions; its forms carry this per-process token. */
    private final String localCsrf;

    public UiAccess(NixExecConfig config, UiSessions sessions, Tenants tenants) {
        this.config = config;
        this.sessions = sessions;
        this.tenants = tenants;
        this.localCsrf = sessions.randomToken();
    }

    /** The caller of a page; without a live session the browser is sent to sign in. */
    UiSessions.Session signedIn(String token) {
        return session(token).orElseThrow(() -> new WebApplicationException(UiResponses.seeOther("/ui/login")));
    }

    Optional<UiSessions.Session> session(String token) {
        if (!config.auth().enabled()) {
            return Optional.of(new UiSessions.Session(tenants.localOperator(), localCsrf));
        }
        return sessions.find(token);
    }

    /**
     * Who a page acts as: an operator naming another tenant ({@code ?tenant=}, from its list across
     * tenants) reads that tenant as its operator, as the API's {@code ?tenant=} does; for every
     * other role, and without the parameter, the caller itself (the parameter is ignored).
     */
    Caller actingIn(Caller caller, String tenant) {
        if (tenant == null || tenant.isBlank() || !caller.role().operates()) {
            return caller;
        }
        try {
            return new Caller(UUID.fromString(tenant.strip()), caller.keyId(), caller.role(), caller.keyName());
        } catch (IllegalArgumentException e) {
            throw Refusal.notFound(tenant);
        }
    }

    /** The page header: role, tenant name, and the token every form of the page carries. */
    Pages.User user(UiSessions.Session session) {
        Caller caller = session.caller();
        String tenant = tenants.find(caller.tenantId()).map(t -> t.name).orElse(caller.tenantId().toString());
        return new Pages.User(caller.role().id(), tenant, UiFormat.key(caller.key().orElse(null)), session.csrf(), caller.role().reviews(),
                caller.role().administers(), !config.auth().enabled());
    }
}

package dev.nixexec.ui;

import dev.nixexec.attach.ShellRecordings;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.job.JobReads;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.session.SessionService;
import dev.nixexec.session.SessionView;
import dev.nixexec.tenant.Caller;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A session's page ({@code /ui/sessions/{id}}: the session, its environment build, its commands and
 * its shells) and a shell's replay ({@code /ui/shells/{id}}, its recording at {@code /ui/shells/{id}/cast}).
 * Shells are for auditors, admins and operators only: what was typed may hold secrets.
 */
@Path("/ui")
public class SessionPagesResource {

    /** The commands shown on a session's page, newest first. */
    private static final int COMMANDS_SHOWN = 200;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance session(Pages.User user, String id, String title, List<Pages.Field> summary,
                List<Pages.JobRow> commands, List<Pages.ShellRow> shells, boolean shellsHidden);

        static native TemplateInstance shell(Pages.User user, String id, List<Pages.Field> summary, String castHref,
                String sessionHref);
    }

    private final UiAccess access;
    private final SessionService sessions;
    private final JobReads jobs;
    private final ShellRecordings recordings;
    private final AuditLog audit;

    public SessionPagesResource(UiAccess access, SessionService sessions, JobReads jobs, ShellRecordings recordings,
            AuditLog audit) {
        this.access = access;
        this.sessions = sessions;
        this.jobs = jobs;
        this.recordings = recordings;
        this.audit = audit;
    }

    @GET
    @Path("sessions/{id}")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance session(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @QueryParam("tenant") String tenant) {
        UiSessions.Session signedIn = access.signedIn(token);
        Caller caller = access.actingIn(signedIn.caller(), tenant);
        SessionView s = sessions.get(caller, UiResponses.idOr404(id).toString());
        String suffix = UiResponses.tenantSuffix(signedIn.caller(), caller);
        List<Pages.Field> summary = new ArrayList<>();
        summary.add(new Pages.Field("Status", s.status()));
        summary.add(new Pages.Field("Packages", s.packages().isEmpty() ? "–" : String.join(" ", s.packages())));
        summary.add(new Pages.Field("Network", s.network()));
        summary.add(new Pages.Field("Created", UiFormat.time(s.createdAt())));
        summary.add(new Pages.Field("Last used", UiFormat.time(s.lastUsedAt())));
        summary.add(new Pages.Field("Store path", s.environment() == null ? "–" : s.environment().storePath()));
        if (s.error() != null) {
            summary.add(new Pages.Field("Error", s.error()));
        }
        List<Pages.JobRow> commands = jobs.ofSession(caller, s.id(), COMMANDS_SHOWN).stream()
                .map(j -> UiFormat.jobRow(j, "/ui/jobs/" + j.id() + suffix, "", Objects.equals(j.id(), s.buildJobId())))
                .toList();
        List<Pages.ShellRow> shells = null;
        if (caller.role().reviews()) {
            List<ShellRecordings.Recording> recorded = recordings.ofSession(caller, s.id());
            Map<UUID, KeyRef> keys = audit.keys(recorded.stream().map(ShellRecordings.Recording::keyId)
                    .filter(Objects::nonNull).toList());
            shells = recorded.stream().map(r -> new Pages.ShellRow("/ui/shells/" + r.id() + suffix,
                    UiFormat.time(r.startedAt()), UiFormat.recordKey(r.keyId() == null ? null : keys.get(r.keyId())),
                    UiFormat.duration(java.time.Duration.between(r.startedAt(), r.endedAt()).toMillis()),
                    UiFormat.bytes(r.bytesIn()), UiFormat.bytes(r.bytesOut()), ended(r), r.truncated())).toList();
        }
        String title = "Session " + (s.name() == null ? s.id().toString() : s.name());
        return Templates.session(access.user(signedIn), s.id().toString(), title, summary, commands, shells,
                shells == null);
    }

    @GET
    @Path("shells/{id}")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance shell(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @QueryParam("tenant") String tenant) {
        UiSessions.Session signedIn = access.signedIn(token);
        Caller caller = access.actingIn(signedIn.caller(), tenant);
        ShellRecordings.Recording r = recordings.find(caller, UiResponses.idOr404(id));
        String suffix = UiResponses.tenantSuffix(signedIn.caller(), caller);
        KeyRef key = r.keyId() == null ? null : audit.keys(List.of(r.keyId())).get(r.keyId());
        List<Pages.Field> summary = List.of(
                new Pages.Field("Opened by", UiFormat.key(key)),
                new Pages.Field("Started", UiFormat.time(r.startedAt())),
                new Pages.Field("Ended", UiFormat.time(r.endedAt()) + " · " + ended(r)),
                new Pages.Field("Typed", UiFormat.bytes(r.bytesIn())),
                new Pages.Field("Shown", UiFormat.bytes(r.bytesOut())
                        + (r.truncated() ? " (the recording keeps the start and the end; the gap is marked)" : "")));
        return Templates.shell(access.user(signedIn), r.id().toString(), summary, "/ui/shells/" + r.id() + "/cast" + suffix,
                "/ui/sessions/" + r.sessionId() + suffix);
    }

    /** The recording as asciicast v2 (replays with {@code asciinema play}), for reviewers only. */
    @GET
    @Path("shells/{id}/cast")
    @Produces("application/x-asciicast")
    @RunOnVirtualThread
    public Response cast(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @QueryParam("tenant") String tenant) {
        Caller caller = access.actingIn(access.signedIn(token).caller(), tenant);
        ShellRecordings.Recording r = recordings.find(caller, UiResponses.idOr404(id));
        return Response.ok(r.cast()).type("application/x-asciicast; charset=utf-8")
                .header("Content-Disposition", "inline; filename=\"shell-" + r.id() + ".cast\"")
                .header("X-Content-Type-Options", "nosniff").build();
    }

    private static String ended(ShellRecordings.Recording r) {
        // an exited shell's close reason is "exit N" already
        String exit = r.exitCode() == null || r.closeReason().equals("exit " + r.exitCode()) ? "" : "exit " + r.exitCode() + " · ";
        return exit + r.closeReason();
    }

    @ServerExceptionMapper
    public Response webResponse(WebApplicationException e) {
        return e.getResponse();
    }

    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return UiResponses.refused(e);
    }
}

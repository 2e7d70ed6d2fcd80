package dev.nixexec.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.job.JobDetail;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobWaits;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestStreamElementType;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The job list ({@code /ui/jobs}), a job's page and its live events: a thin adapter over the same
 * {@link JobReads}, {@link JobWaits} and {@link AuditLog} calls as the REST API, scoped to the signed-in caller.
 */
@Path("/ui/jobs")
public class JobPagesResource {

    private static final int PAGE_SIZE = 50;
    /** More than any job's trail holds; the page shows the whole trail. */
    private static final int AUDIT_ENTRIES = 500;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance jobs(Pages.User user, Pages.Filter filter, List<Pages.JobRow> rows,
                String nextPage, String firstPage, String error);

        static native TemplateInstance job(Pages.User user, String id, String status, boolean live,
                List<Pages.Field> summary, List<Pages.Field> environment, List<String> packages,
                List<Pages.EnvRow> env, boolean envValuesHidden, String code, String stdin,
                List<Pages.Output> outputs, List<Pages.AuditRow> audit);
    }

    private final UiAccess access;
    private final JobReads jobs;
    private final JobWaits waits;
    private final AuditLog audit;
    private final ObjectMapper json;

    public JobPagesResource(UiAccess access, JobReads jobs, JobWaits waits, AuditLog audit, ObjectMapper json) {
        this.access = access;
        this.jobs = jobs;
        this.waits = waits;
        this.audit = audit;
        this.json = json;
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response jobList(@CookieParam(UiAccess.SESSION_COOKIE) String token, @QueryParam("status") String status,
            @QueryParam("language") String language, @QueryParam("package") String packageName,
            @QueryParam("key") String key, @QueryParam("node") String node, @QueryParam("since") String since,
            @QueryParam("until") String until, @QueryParam("cursor") String cursor) {
        UiSessions.Session session = access.signedIn(token);
        JobListQuery query = JobListQuery.typed(status, language, packageName, key, node, since, until);
        String error = null;
        List<Pages.JobRow> rows = List.of();
        String next = null;
        try {
            JobReads.Page page = jobs.list(session.caller(), query.filter(), PAGE_SIZE, JobListQuery.blankToNull(cursor));
            rows = page.items().stream().map(UiFormat::jobRow).toList();
            next = page.nextCursor() == null ? null : query.link(page.nextCursor());
        } catch (IllegalArgumentException | InvalidRequestException e) {
            error = e.getMessage();
        }
        String first = cursor == null || cursor.isBlank() ? null : query.link(null);
        return Response.status(error == null ? 200 : 400)
                .entity(Templates.jobs(access.user(session), query.form(), rows, next, first, error)).build();
    }

    @GET
    @Path("{id}")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance jobPage(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = session.caller();
        JobDetail detail = jobs.detail(caller, jobId(id));
        List<AuditLog.Entry> trail = caller.role().reviews()
                ? audit.list(caller.tenantId(), detail.job().id(), null, null, AUDIT_ENTRIES) : null;
        JobPageView v = JobPageView.of(detail, trail, json);
        return Templates.job(access.user(session), v.id(), v.status(), v.live(), v.summary(), v.environment(),
                v.packages(), v.env(), v.envValuesHidden(), v.code(), v.stdin(), v.outputs(), v.audit());
    }

    /**
     * The job's live events for the page's script: the REST stream's events, authenticated by the
     * session cookie, which the browser sends and the script never sees.
     */
    @GET
    @Path("{id}/events")
    @Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    public Multi<OutboundSseEvent> events(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @HeaderParam("Last-Event-ID") String lastEventId, @Context Sse sse) {
        UiSessions.Session session = access.session(token).orElseThrow(() -> new WebApplicationException(401));
        int after = 0;
        if (lastEventId != null && lastEventId.strip().matches("\\d{1,9}")) {
            after = Integer.parseInt(lastEventId.strip());
        }
        return waits.follow(session.caller(), jobId(id), after).map(e ->
                sse.newEventBuilder().id(Integer.toString(e.seq())).name(e.kind()).data(e.data()).build());
    }

    @ServerExceptionMapper
    public Response webResponse(WebApplicationException e) {
        return e.getResponse();
    }

    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return UiResponses.refused(e);
    }

    private static UUID jobId(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Refusal.notFound(id);
        }
    }
}

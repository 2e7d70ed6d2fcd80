package dev.nixexec.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.job.JobDetail;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobView;
import dev.nixexec.job.JobWaits;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.workspace.ImageBytes;
import dev.nixexec.workspace.Artifact;
import dev.nixexec.workspace.FileContent;
import dev.nixexec.workspace.WorkspacePath;
import dev.nixexec.workspace.WorkspaceService;
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
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    /** Image-named artifacts whose bytes are read to tell a picture from a file merely named like one; later ones are links. */
    private static final int IMAGES_CHECKED = 12;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance jobs(Pages.User user, Pages.Filter filter, List<Pages.JobRow> rows,
                String nextPage, String firstPage, String error, boolean operator, String csvExport, String jsonExport);

        static native TemplateInstance job(Pages.User user, String id, String status, boolean live, String eventsUrl,
                List<Pages.Field> summary, List<Pages.Field> environment, List<String> packages,
                List<Pages.EnvRow> env, boolean envValuesHidden, String code, String stdin,
                List<Pages.Output> outputs, List<Pages.ArtifactRow> artifacts, List<Pages.AuditRow> audit,
                List<Pages.LimitRow> limits, String build, String sessionHref);
    }

    private final UiAccess access;
    private final JobReads jobs;
    private final JobWaits waits;
    private final AuditLog audit;
    private final ObjectMapper json;
    private final TenantNames tenantNames;
    private final WorkspaceService workspaces;

    public JobPagesResource(UiAccess access, JobReads jobs, JobWaits waits, AuditLog audit, ObjectMapper json,
            TenantNames tenantNames, WorkspaceService workspaces) {
        this.access = access;
        this.jobs = jobs;
        this.waits = waits;
        this.audit = audit;
        this.json = json;
        this.tenantNames = tenantNames;
        this.workspaces = workspaces;
    }

    /**
     * The job list: the caller's tenant, or for an operator every tenant unless the {@code tenant}
     * filter names one. For other roles {@code tenant} is ignored: their list is their tenant's.
     */
    @GET
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response jobList(@CookieParam(UiAccess.SESSION_COOKIE) String token, @QueryParam("cursor") String cursor,
            @Context UriInfo uri) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = session.caller();
        boolean operator = caller.role().operates();
        Map<UUID, String> tenants = operator ? tenantNames.all() : Map.of();
        JobListQuery query = JobListQuery.typed(null, null, null, null, null, null, null);
        String error = null;
        List<Pages.JobRow> rows = List.of();
        String next = null;
        try {
            query = JobListQuery.of(uri.getQueryParameters());
            JobReads.TenantPage page = listed(caller, query, PAGE_SIZE, JobListQuery.blankToNull(cursor));
            rows = page.items().stream().map(j -> row(j, operator, tenants)).toList();
            next = page.nextCursor() == null ? null : query.link(page.nextCursor());
        } catch (IllegalArgumentException | InvalidRequestException e) {
            error = e.getMessage();
        }
        String first = cursor == null || cursor.isBlank() ? null : query.link(null);
        return Response.status(error == null ? 200 : 400).entity(Templates.jobs(access.user(session), query.form(tenants),
                rows, next, first, error, operator, query.exportLink("csv"), query.exportLink("json"))).build();
    }

    /** The filtered list as CSV, at most {@link JobExport#MAX_ROWS} rows (header {@code X-Export-Truncated} when cut). */
    @GET
    @Path("export.csv")
    @Produces("text/csv")
    @RunOnVirtualThread
    public Response exportCsv(@CookieParam(UiAccess.SESSION_COOKIE) String token, @Context UriInfo uri) {
        return export(token, uri, "csv");
    }

    /** The filtered list as JSON: {@code {items, truncated, max_rows}}, the same columns as the CSV. */
    @GET
    @Path("export.json")
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    public Response exportJson(@CookieParam(UiAccess.SESSION_COOKIE) String token, @Context UriInfo uri) {
        return export(token, uri, "json");
    }

    private Response export(String token, UriInfo uri, String format) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = session.caller();
        Map<UUID, String> tenants = caller.role().operates() ? tenantNames.all() : Map.of();
        JobReads.TenantPage page;
        try {
            page = listed(caller, JobListQuery.of(uri.getQueryParameters()), JobExport.MAX_ROWS, null);
        } catch (IllegalArgumentException | InvalidRequestException e) {
            return Response.status(400).type("text/plain; charset=utf-8").entity(e.getMessage()).build();
        }
        String own = access.user(session).tenant();
        List<JobExport.Row> rows = page.items().stream()
                .map(j -> new JobExport.Row(j.job(), tenants.getOrDefault(j.tenantId(), own))).toList();
        boolean truncated = page.nextCursor() != null;
        String body = format.equals("csv") ? JobExport.csv(rows, json) : JobExport.json(rows, truncated, json);
        return Response.ok(body).type(format.equals("csv") ? "text/csv; charset=utf-8" : MediaType.APPLICATION_JSON)
                .header("Content-Disposition", "attachment; filename=\"jobs." + format + "\"")
                .header("X-Export-Truncated", Boolean.toString(truncated)).build();
    }

    /** One page in one query: the caller's tenant; an operator's pick, or every tenant. */
    private JobReads.TenantPage listed(Caller caller, JobListQuery query, int limit, String cursor) {
        JobReads.Filter filter = query.filter();
        if (!caller.role().operates()) {
            return ofTenant(caller.tenantId(), jobs.list(caller.tenantId(), filter, limit, cursor));
        }
        Optional<UUID> tenant = query.tenantId();
        if (tenant.isPresent()) {
            return ofTenant(tenant.get(), jobs.list(tenant.get(), filter, limit, cursor));
        }
        return jobs.listEveryTenant(caller, filter, limit, cursor);
    }

    private static JobReads.TenantPage ofTenant(UUID tenantId, JobReads.Page page) {
        return new JobReads.TenantPage(page.items().stream().map(j -> new JobReads.TenantJob(tenantId, j)).toList(),
                page.nextCursor());
    }

    private static Pages.JobRow row(JobReads.TenantJob j, boolean operator, Map<UUID, String> tenants) {
        if (!operator) {
            return UiFormat.jobRow(j.job());
        }
        return UiFormat.jobRow(j.job(), "/ui/jobs/" + j.job().id() + "?tenant=" + j.tenantId(),
                tenants.getOrDefault(j.tenantId(), j.tenantId().toString()));
    }

    @GET
    @Path("{id}")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance jobPage(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @QueryParam("tenant") String tenant) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = access.actingIn(session.caller(), tenant);
        JobDetail detail = jobs.detail(caller, UiResponses.idOr404(id));
        List<AuditLog.Entry> trail = caller.role().reviews()
                ? audit.list(caller.tenantId(), detail.job().id(), null, null, AUDIT_ENTRIES) : null;
        JobPageView v = JobPageView.of(detail, trail, json);
        String tenantSuffix = UiResponses.tenantSuffix(session.caller(), caller);
        return Templates.job(access.user(session), v.id(), v.status(), v.live(),
                "/ui/jobs/" + v.id() + "/events" + tenantSuffix, v.summary(), v.environment(), v.packages(), v.env(),
                v.envValuesHidden(), v.code(), v.stdin(), v.outputs(),
                artifacts(caller, detail.job(), tenantSuffix), v.audit(), v.limits(), v.build(),
                v.sessionId() == null ? null : "/ui/sessions/" + v.sessionId() + tenantSuffix);
    }

    private List<Pages.ArtifactRow> artifacts(Caller caller, JobView job, String tenantSuffix) {
        List<Pages.ArtifactRow> rows = new ArrayList<>();
        int checked = 0;
        for (Artifact a : job.artifacts()) {
            String href = "/ui/jobs/" + job.id() + "/artifacts/" + a.url().substring(a.url().indexOf("/artifacts/") + 11)
                    + tenantSuffix;
            boolean image = false;
            boolean svg = false;
            if (a.contentType().startsWith("image/") && checked++ < IMAGES_CHECKED) {
                FileContent file = workspaces.artifact(caller, job.id(), WorkspacePath.parse("path", a.name()));
                image = ImageBytes.rasterType(file.content()).isPresent();
                svg = !image && a.contentType().equals("image/svg+xml");
            }
            rows.add(new Pages.ArtifactRow(a.name(), UiFormat.bytes(a.size()), a.contentType(), href, image, svg));
        }
        return rows;
    }

    /**
     * A job's artifact for the page: PNG, JPEG, GIF or WebP by its bytes inline with that type; an
     * SVG as {@code image/svg+xml} but as an attachment (an {@code <img>} draws it, opening it
     * downloads it); anything else as opaque bytes to download. Always {@code nosniff} and a
     * sandboxing policy, so no artifact runs as a page of this site.
     */
    @GET
    @Path("{id}/artifacts/{path: .+}")
    @Produces(MediaType.WILDCARD)
    @RunOnVirtualThread
    public Response artifact(@CookieParam(UiAccess.SESSION_COOKIE) String token, @PathParam("id") String id,
            @PathParam("path") String path, @QueryParam("tenant") String tenant) {
        Caller caller = access.actingIn(access.signedIn(token).caller(), tenant);
        FileContent file = workspaces.artifact(caller, UiResponses.idOr404(id), WorkspacePath.parse("path", path));
        Optional<String> raster = ImageBytes.rasterType(file.content());
        String type = raster.orElse(file.contentType().equals("image/svg+xml") ? "image/svg+xml" : "application/octet-stream");
        String name = file.path().substring(file.path().lastIndexOf('/') + 1).replaceAll("[^A-Za-z0-9._-]", "_");
        return Response.ok(file.content()).type(type)
                .header("Content-Disposition", (raster.isPresent() ? "inline" : "attachment") + "; filename=\"" + name + "\"")
                .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
                .header("X-Content-Type-Options", "nosniff").build();
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
            @HeaderParam("Last-Event-ID") String lastEventId, @QueryParam("tenant") String tenant, @Context Sse sse) {
        UiSessions.Session session = access.session(token).orElseThrow(() -> new WebApplicationException(401));
        Caller caller = access.actingIn(session.caller(), tenant);
        int after = 0;
        if (lastEventId != null && lastEventId.strip().matches("\\d{1,9}")) {
            after = Integer.parseInt(lastEventId.strip());
        }
        return waits.follow(caller, UiResponses.idOr404(id), after).map(e ->
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
}

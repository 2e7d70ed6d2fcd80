package dev.nixexec.ui;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobStats;
import dev.nixexec.job.JobStatus;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The fleet page ({@code /ui/fleet}), for reviewers: the nodes (operators only, as {@code GET /v1/nodes}),
 * the building and running jobs and the charts of {@link JobStats}: the reviewer's tenant's, and for an
 * operator, who runs the whole fleet, every tenant's or one picked with the tenant filter (as the job list).
 */
@Path("/ui/fleet")
public class FleetPageResource {

    /** The running jobs shown, per status. */
    private static final int RUNNING_SHOWN = 100;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance fleet(Pages.User user, List<Pages.NodeRow> nodes, List<Pages.JobRow> running,
                List<SvgChart> charts, List<Pages.Option> windows, String window, boolean operator,
                List<Pages.Option> tenants, String scope);
    }

    private final NixExecConfig config;
    private final UiAccess access;
    private final JobReads jobs;
    private final JobStats stats;
    private final FleetNodes fleet;

    private final TenantNames tenantNames;

    public FleetPageResource(NixExecConfig config, UiAccess access, JobReads jobs, JobStats stats, FleetNodes fleet,
            TenantNames tenantNames) {
        this.tenantNames = tenantNames;
        this.config = config;
        this.access = access;
        this.jobs = jobs;
        this.stats = stats;
        this.fleet = fleet;
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance fleet(@CookieParam(UiAccess.SESSION_COOKIE) String token, @QueryParam("hours") String hours,
            @QueryParam("tenant") String tenant) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = session.caller();
        if (!caller.role().reviews()) {
            throw UiResponses.forbidden("the fleet page needs an auditor, admin or operator key");
        }
        String window = FleetView.window(hours);
        List<Pages.NodeRow> nodes = null;
        if (caller.role().operates()) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            Duration stale = config.jobs().heartbeat().multipliedBy(3);
            nodes = fleet.nodes().stream().map(n -> FleetView.nodeRow(n, now, stale)).toList();
        }
        boolean operator = caller.role().operates();
        Map<UUID, String> names = operator ? tenantNames.all() : Map.of();
        // an operator sees every tenant's work unless it picks one; every other role its own tenant's
        Optional<UUID> picked = operator ? pickedTenant(tenant, names) : Optional.of(caller.tenantId());
        List<Pages.JobRow> running = new ArrayList<>();
        for (JobStatus status : List.of(JobStatus.BUILDING, JobStatus.RUNNING)) {
            JobReads.Filter filter = new JobReads.Filter(status, null, null, null);
            if (!operator) {
                jobs.list(caller, filter, RUNNING_SHOWN, null).items().forEach(j -> running.add(UiFormat.jobRow(j)));
                continue;
            }
            List<JobReads.TenantJob> listed = picked.isPresent()
                    ? jobs.list(picked.get(), filter, RUNNING_SHOWN, null).items().stream()
                            .map(j -> new JobReads.TenantJob(picked.get(), j)).toList()
                    : jobs.listEveryTenant(caller, filter, RUNNING_SHOWN, null).items();
            listed.forEach(j -> running.add(UiFormat.jobRow(j.job(), "/ui/jobs/" + j.job().id() + "?tenant=" + j.tenantId(),
                    names.getOrDefault(j.tenantId(), j.tenantId().toString()))));
        }
        List<SvgChart> charts = FleetView.charts(stats.recent(picked.orElse(null), FleetView.duration(window)));
        List<Pages.Option> tenantOptions = names.entrySet().stream().map(t -> new Pages.Option(t.getKey().toString(),
                t.getValue(), picked.isPresent() && t.getKey().equals(picked.get()))).toList();
        String scope = !operator ? "This tenant" : picked.map(t -> "Tenant " + names.getOrDefault(t, t.toString()))
                .orElse("Every tenant");
        return Templates.fleet(access.user(session), nodes, running, charts, FleetView.windowOptions(window), window,
                operator, tenantOptions, scope);
    }

    /** The operator's tenant filter: empty for every tenant; a value that is no tenant's id is "not found". */
    private static Optional<UUID> pickedTenant(String tenant, Map<UUID, String> names) {
        if (tenant == null || tenant.isBlank()) {
            return Optional.empty();
        }
        try {
            UUID id = UUID.fromString(tenant.strip());
            if (names.containsKey(id)) {
                return Optional.of(id);
            }
        } catch (IllegalArgumentException e) {
            // not an id: as unknown
        }
        throw Refusal.notFound(tenant);
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

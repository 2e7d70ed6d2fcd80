package dev.nixexec.ui;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.JobQueue;
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
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The fleet page ({@code /ui/fleet}), for reviewers: the nodes (operators only, as {@code GET /v1/nodes}),
 * this tenant's building and running jobs, and the charts of {@link JobStats}.
 */
@Path("/ui/fleet")
public class FleetPageResource {

    /** The running jobs shown, per status. */
    private static final int RUNNING_SHOWN = 100;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance fleet(Pages.User user, List<Pages.NodeRow> nodes, List<Pages.JobRow> running,
                List<SvgChart> charts, List<Pages.Option> windows, String window);
    }

    private final NixExecConfig config;
    private final UiAccess access;
    private final JobReads jobs;
    private final JobStats stats;
    private final JobQueue queue;

    public FleetPageResource(NixExecConfig config, UiAccess access, JobReads jobs, JobStats stats, JobQueue queue) {
        this.config = config;
        this.access = access;
        this.jobs = jobs;
        this.stats = stats;
        this.queue = queue;
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance fleet(@CookieParam(UiAccess.SESSION_COOKIE) String token, @QueryParam("hours") String hours) {
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
            nodes = queue.nodes().stream().map(n -> FleetView.nodeRow(n, now, stale)).toList();
        }
        List<Pages.JobRow> running = new ArrayList<>();
        for (JobStatus status : List.of(JobStatus.BUILDING, JobStatus.RUNNING)) {
            jobs.list(caller, new JobReads.Filter(status, null, null, null), RUNNING_SHOWN, null).items()
                    .forEach(j -> running.add(UiFormat.jobRow(j)));
        }
        List<SvgChart> charts = FleetView.charts(stats.recent(caller.tenantId(), FleetView.duration(window)));
        return Templates.fleet(access.user(session), nodes, running, charts, FleetView.windowOptions(window), window);
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

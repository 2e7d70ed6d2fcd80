package dev.nixexec.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.JobDetail;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.job.JobQueue;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobStats;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.JobView;
import dev.nixexec.nix.Language;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.refusal.InvalidRequestException;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestStreamElementType;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The audit UI at {@code /ui}: sign-in with an API key, the job list, a job's page with its audit
 * trail and live output, and the fleet page. A thin adapter over the job, audit and tenant services,
 * like the REST API; every page is tenant-scoped through the signed-in caller.
 */
@Path("/ui")
public class AuditUi {

    static final String SESSION_COOKIE = "nx_ui_session";
    static final String LOGIN_COOKIE = "nx_ui_login";
    private static final int PAGE_SIZE = 50;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'");
    private static final DateTimeFormatter SHORT_TIME = DateTimeFormatter.ofPattern("HH:mm 'UTC'");
    private static final List<String> STATUS_ORDER = List.of("succeeded", "failed", "timed_out", "cancelled", "error");
    private static final Map<String, Duration> WINDOWS = Map.of("1", Duration.ofHours(1), "3", Duration.ofHours(3),
            "6", Duration.ofHours(6), "24", Duration.ofHours(24));

    @CheckedTemplate
    static class Templates {
        static native TemplateInstance login(String csrf, String error);

        static native TemplateInstance jobs(Pages.User user, Pages.Filter filter, List<Pages.JobRow> rows,
                String nextPage, String firstPage, String error);

        static native TemplateInstance job(Pages.User user, String id, String status, boolean live,
                List<Pages.Field> summary, List<Pages.Field> environment, List<String> packages,
                List<Pages.EnvRow> env, boolean envValuesHidden, String code, String stdin,
                List<Pages.Output> outputs, List<Pages.AuditRow> audit);

        static native TemplateInstance fleet(Pages.User user, List<Pages.NodeRow> nodes, List<Pages.JobRow> running,
                List<SvgChart> charts, List<Pages.Option> windows, String window);
    }

    private final NixExecConfig config;
    private final UiSessions sessions;
    private final Tenants tenants;
    private final JobReads jobs;
    private final JobWaits waits;
    private final JobStats stats;
    private final JobQueue queue;
    private final AuditLog audit;
    private final ObjectMapper json;
    /** Local mode has no sessions; its forms carry this per-process token. */
    private final String localCsrf;

    public AuditUi(NixExecConfig config, UiSessions sessions, Tenants tenants, JobReads jobs, JobWaits waits,
            JobStats stats, JobQueue queue, AuditLog audit, ObjectMapper json) {
        this.config = config;
        this.sessions = sessions;
        this.tenants = tenants;
        this.jobs = jobs;
        this.waits = waits;
        this.stats = stats;
        this.queue = queue;
        this.audit = audit;
        this.json = json;
        this.localCsrf = sessions.randomToken();
    }

    @GET
    public Response home() {
        return seeOther("/ui/jobs");
    }

    // ---- sign-in and sign-out

    @GET
    @Path("login")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response loginPage(@CookieParam(SESSION_COOKIE) String token, @Context UriInfo uri) {
        if (!config.auth().enabled() || sessions.find(token).isPresent()) {
            return seeOther("/ui/jobs");
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
            @Context HttpHeaders headers, @Context UriInfo uri) {
        if (!UiSessions.sameToken(expectedCsrf, csrf) || !sameOrigin(origin, uri)) {
            return loginForm(403, "The sign-in form expired or came from another site; please sign in again.", uri);
        }
        Optional<Caller> caller = tenants.authenticate(key == null ? null : key.strip());
        if (caller.isEmpty()) {
            return loginForm(401, "That API key is unknown or revoked.", uri);
        }
        UiSessions.Started started = sessions.start(caller.get());
        return Response.seeOther(URI.create("/ui/jobs"))
                .cookie(cookie(SESSION_COOKIE, started.token(), "/ui", uri, -1), expired(LOGIN_COOKIE, "/ui/login", uri))
                .build();
    }

    @POST
    @Path("logout")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @RunOnVirtualThread
    public Response logout(@CookieParam(SESSION_COOKIE) String token, @FormParam("csrf") String csrf,
            @HeaderParam("Origin") String origin, @Context UriInfo uri) {
        UiSessions.Session session = signedIn(token);
        if (!UiSessions.sameToken(session.csrf(), csrf) || !sameOrigin(origin, uri)) {
            throw new WebApplicationException(Response.status(403).type(MediaType.TEXT_PLAIN)
                    .entity("the form's CSRF token does not match this session").build());
        }
        if (token != null) {
            sessions.end(token);
        }
        return Response.seeOther(URI.create("/ui/login")).cookie(expired(SESSION_COOKIE, "/ui", uri)).build();
    }

    // ---- jobs

    @GET
    @Path("jobs")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response jobList(@CookieParam(SESSION_COOKIE) String token, @QueryParam("status") String status,
            @QueryParam("language") String language, @QueryParam("package") String packageName,
            @QueryParam("key") String key, @QueryParam("node") String node, @QueryParam("since") String since,
            @QueryParam("until") String until, @QueryParam("cursor") String cursor) {
        UiSessions.Session session = signedIn(token);
        Map<String, String> typed = new LinkedHashMap<>();
        typed.put("status", blankToNull(status));
        typed.put("language", blankToNull(language));
        typed.put("package", blankToNull(packageName));
        typed.put("key", blankToNull(key));
        typed.put("node", blankToNull(node));
        typed.put("since", blankToNull(since));
        typed.put("until", blankToNull(until));
        Pages.Filter form = new Pages.Filter(
                options(Arrays.stream(JobStatus.values()).map(JobStatus::id).toList(), typed.get("status")),
                options(Arrays.stream(Language.values()).map(Language::id).toList(), typed.get("language")),
                orEmpty(typed.get("package")), orEmpty(typed.get("key")), orEmpty(typed.get("node")),
                orEmpty(typed.get("since")), orEmpty(typed.get("until")));
        String error = null;
        List<Pages.JobRow> rows = List.of();
        String next = null;
        try {
            JobReads.Filter filter = new JobReads.Filter(
                    typed.get("status") == null ? null : JobStatus.byId(typed.get("status")).orElseThrow(
                            () -> new IllegalArgumentException("unknown status")),
                    typed.get("language"), time("from", typed.get("since")), time("to", typed.get("until")),
                    typed.get("package"), typed.get("key") == null ? null : uuid("key", typed.get("key")),
                    typed.get("node"));
            JobReads.Page page = jobs.list(session.caller(), filter, PAGE_SIZE, blankToNull(cursor));
            rows = page.items().stream().map(AuditUi::row).toList();
            if (page.nextCursor() != null) {
                Map<String, String> nextQuery = new LinkedHashMap<>(typed);
                nextQuery.put("cursor", page.nextCursor());
                next = "/ui/jobs" + query(nextQuery);
            }
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
        } catch (InvalidRequestException e) {
            error = e.getMessage();
        }
        String first = cursor == null || cursor.isBlank() ? null : "/ui/jobs" + query(typed);
        return Response.status(error == null ? 200 : 400)
                .entity(Templates.jobs(user(session), form, rows, next, first, error)).build();
    }

    @GET
    @Path("jobs/{id}")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance jobPage(@CookieParam(SESSION_COOKIE) String token, @PathParam("id") String id) {
        UiSessions.Session session = signedIn(token);
        Caller caller = session.caller();
        JobDetail detail = jobs.detail(caller, jobId(id));
        JobView job = detail.job();
        List<Pages.Field> summary = new ArrayList<>();
        summary.add(new Pages.Field("Status", job.status()));
        summary.add(new Pages.Field("Language", job.language()));
        summary.add(new Pages.Field("Submitted by key", detail.keyId() == null ? "local mode" : detail.keyId().toString()));
        summary.add(new Pages.Field("Node", orDash(job.nodeId())));
        summary.add(new Pages.Field("Attempt", job.attempt() + " of " + detail.maxAttempts()));
        summary.add(new Pages.Field("Created", time(job.createdAt())));
        summary.add(new Pages.Field("Claimed", time(detail.claimedAt())));
        summary.add(new Pages.Field("Started", time(job.startedAt())));
        summary.add(new Pages.Field("Finished", time(job.finishedAt())));
        summary.add(new Pages.Field("Run time", job.durationMs() == null ? "–" : job.durationMs() + " ms"));
        summary.add(new Pages.Field("Exit code", job.exitCode() == null ? "–" : job.exitCode().toString()));
        if (job.signal() != null) {
            summary.add(new Pages.Field("Signal", job.signal().toString()));
        }
        summary.add(new Pages.Field("Timed out", job.timedOut() ? "yes" : "no"));
        summary.add(new Pages.Field("Limit hit", orDash(job.limitHit())));
        summary.add(new Pages.Field("Timeout", detail.timeoutMs() + " ms"));
        summary.add(new Pages.Field("Network", detail.network() ? "full" : "none"));
        if (detail.cancelRequested()) {
            summary.add(new Pages.Field("Cancel", "requested"));
        }
        if (job.error() != null) {
            summary.add(new Pages.Field("Error", job.error().code() + ": " + job.error().message()));
        }
        if (!job.metadata().isEmpty()) {
            summary.add(new Pages.Field("Metadata", write(job.metadata())));
        }
        List<Pages.Field> environment = new ArrayList<>();
        JobView.EnvironmentView env = job.environment();
        environment.add(new Pages.Field("Store path", env == null ? "–" : orDash(env.storePath())));
        environment.add(new Pages.Field("nixpkgs revision", env == null ? "–" : orDash(env.nixpkgsRevision())));
        environment.add(new Pages.Field("Cache hit", env == null || env.cacheHit() == null ? "–" : env.cacheHit() ? "yes" : "no"));
        environment.add(new Pages.Field("Build time", env == null || env.buildMs() == null ? "–" : env.buildMs() + " ms"));
        List<Pages.EnvRow> envRows = detail.envNames().stream()
                .map(name -> new Pages.EnvRow(name, detail.env().map(values -> values.get(name)).orElse(null))).toList();
        List<Pages.Output> outputs = List.of(
                output("stdout", job.stdout(), job.stdoutTruncated(), job.stdoutBytes()),
                output("stderr", job.stderr(), job.stderrTruncated(), job.stderrBytes()));
        List<Pages.AuditRow> trail = null;
        if (caller.role().reviews()) {
            List<AuditLog.Entry> entries = new ArrayList<>(audit.list(caller.tenantId(), job.id(), null, null, 500));
            entries.sort((a, b) -> Long.compare(a.id(), b.id()));
            trail = entries.stream().map(e -> new Pages.AuditRow(time(e.at()), e.kind(), orDash(e.nodeId()),
                    e.keyId() == null ? "–" : e.keyId().toString(), write(e.detail()))).toList();
        }
        return Templates.job(user(session), job.id().toString(), job.status(), !job.terminal(), summary, environment,
                job.packages(), envRows, detail.env().isEmpty(), detail.code(), detail.stdin(), outputs, trail);
    }

    /**
     * The job's live events for the page's script: the REST stream's events, authenticated by the
     * session cookie, which the browser sends and the script never sees.
     */
    @GET
    @Path("jobs/{id}/events")
    @Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    public Multi<OutboundSseEvent> events(@CookieParam(SESSION_COOKIE) String token, @PathParam("id") String id,
            @HeaderParam("Last-Event-ID") String lastEventId, @Context Sse sse) {
        UiSessions.Session session = sessions(token).orElseThrow(() -> new WebApplicationException(401));
        int after = 0;
        if (lastEventId != null && lastEventId.strip().matches("\\d{1,9}")) {
            after = Integer.parseInt(lastEventId.strip());
        }
        return waits.follow(session.caller(), jobId(id), after).map(e ->
                sse.newEventBuilder().id(Integer.toString(e.seq())).name(e.kind()).data(e.data()).build());
    }

    // ---- fleet

    @GET
    @Path("fleet")
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public TemplateInstance fleet(@CookieParam(SESSION_COOKIE) String token, @QueryParam("hours") String hours) {
        UiSessions.Session session = signedIn(token);
        Caller caller = session.caller();
        if (!caller.role().reviews()) {
            throw new WebApplicationException(Response.status(403).type(MediaType.TEXT_PLAIN)
                    .entity("the fleet page needs an auditor, admin or operator key").build());
        }
        String window = hours != null && WINDOWS.containsKey(hours) ? hours : "3";
        List<Pages.NodeRow> nodes = null;
        if (caller.role().operates()) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            Duration stale = config.jobs().heartbeat().multipliedBy(3);
            nodes = queue.nodes().stream().map(n -> {
                Duration age = Duration.between(n.heartbeatAt(), now);
                return new Pages.NodeRow(n.id(), n.role(), n.running(), n.concurrency(), time(n.heartbeatAt()),
                        Math.max(0, age.toSeconds()) + " s ago", age.compareTo(stale) > 0);
            }).toList();
        }
        List<Pages.JobRow> running = new ArrayList<>();
        for (JobStatus status : List.of(JobStatus.BUILDING, JobStatus.RUNNING)) {
            jobs.list(caller, new JobReads.Filter(status, null, null, null), 100, null).items()
                    .forEach(j -> running.add(row(j)));
        }
        JobStats.Window recent = stats.recent(caller.tenantId(), WINDOWS.get(window));
        List<JobStats.Bucket> buckets = recent.buckets();
        String firstLabel = SHORT_TIME.format(recent.start());
        String lastLabel = SHORT_TIME.format(recent.start().plus(recent.bucket().multipliedBy(buckets.size())));
        double minutes = recent.bucket().toSeconds() / 60.0;
        Map<String, Double[]> queueDepth = new LinkedHashMap<>();
        queueDepth.put("queued", buckets.stream().map(b -> (double) b.queued()).toArray(Double[]::new));
        Map<String, Double[]> durations = new LinkedHashMap<>();
        durations.put("p50", buckets.stream().map(JobStats.Bucket::p50Ms).toArray(Double[]::new));
        durations.put("p95", buckets.stream().map(JobStats.Bucket::p95Ms).toArray(Double[]::new));
        List<SvgChart> charts = List.of(
                SvgChart.stacked("Jobs finished per minute, by status", "jobs/min",
                        buckets.stream().map(JobStats.Bucket::finished).toList(), STATUS_ORDER, minutes, firstLabel, lastLabel),
                SvgChart.lines("Queue depth", "jobs", queueDepth, firstLabel, lastLabel),
                SvgChart.lines("Run time p50 / p95", "ms", durations, firstLabel, lastLabel));
        List<Pages.Option> windows = List.of("1", "3", "6", "24").stream()
                .map(h -> new Pages.Option(h, "last " + h + " h", h.equals(window))).toList();
        return Templates.fleet(user(session), nodes, running, charts, windows, window);
    }

    // ---- static files

    @GET
    @Path("assets/{name}")
    public Response asset(@PathParam("name") String name) throws IOException {
        String type = switch (name) {
            case "ui.js" -> "text/javascript; charset=utf-8";
            case "ui.css" -> "text/css; charset=utf-8";
            case "favicon.svg" -> "image/svg+xml";
            default -> null;
        };
        if (type == null) {
            return Response.status(404).build();
        }
        try (InputStream in = AuditUi.class.getResourceAsStream("/ui/" + name)) {
            return Response.ok(in.readAllBytes(), type).header("Cache-Control", "no-cache").build();
        }
    }

    // ---- errors: these mappers apply to this resource only; the REST API keeps problem+json

    /** Redirects and refusals made here carry their own response. */
    @ServerExceptionMapper
    public Response webResponse(WebApplicationException e) {
        return e.getResponse();
    }

    /** A job of another tenant (or none) and the like, as a short page rather than JSON. */
    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return Response.status(e.kind().status).type("text/plain; charset=utf-8").entity(e.getMessage()).build();
    }

    // ---- helpers

    private UiSessions.Session signedIn(String token) {
        return sessions(token).orElseThrow(() -> new WebApplicationException(seeOther("/ui/login")));
    }

    private Optional<UiSessions.Session> sessions(String token) {
        if (!config.auth().enabled()) {
            return Optional.of(new UiSessions.Session(tenants.localOperator(), localCsrf));
        }
        return sessions.find(token);
    }

    private Pages.User user(UiSessions.Session session) {
        Caller caller = session.caller();
        String tenant = tenants.find(caller.tenantId()).map(t -> t.name).orElse(caller.tenantId().toString());
        return new Pages.User(caller.role().id(), tenant, session.csrf(), caller.role().reviews(),
                caller.role().administers(), !config.auth().enabled());
    }

    private Response loginForm(int status, String error, UriInfo uri) {
        String csrf = sessions.randomToken();
        return Response.status(status).entity(Templates.login(csrf, error))
                .cookie(cookie(LOGIN_COOKIE, csrf, "/ui/login", uri, 3600)).build();
    }

    /** HttpOnly and SameSite=Strict always; Secure when the page came over HTTPS. */
    private static NewCookie cookie(String name, String value, String path, UriInfo uri, int maxAge) {
        return new NewCookie.Builder(name).value(value).path(path).httpOnly(true)
                .sameSite(NewCookie.SameSite.STRICT).secure("https".equals(uri.getRequestUri().getScheme()))
                .maxAge(maxAge).build();
    }

    private static NewCookie expired(String name, String path, UriInfo uri) {
        return cookie(name, "", path, uri, 0);
    }

    /**
     * A browser sends Origin on a POST; when it does, it must be this site. Behind a TLS proxy the
     * base URI is the public one only when quarkus.http.proxy.* trusts that proxy (docs/operations.md).
     */
    private static boolean sameOrigin(String origin, UriInfo uri) {
        if (origin == null) {
            return true;
        }
        URI self = uri.getBaseUri();
        try {
            URI other = URI.create(origin);
            return self.getHost() != null && self.getHost().equalsIgnoreCase(other.getHost())
                    && self.getPort() == other.getPort() && self.getScheme().equalsIgnoreCase(other.getScheme());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Response seeOther(String path) {
        return Response.seeOther(URI.create(path)).build();
    }

    private static Pages.JobRow row(JobView j) {
        return new Pages.JobRow(j.id().toString(), j.status(), j.language(), String.join(" ", j.packages()),
                time(j.createdAt()), j.durationMs() == null ? "" : j.durationMs() + " ms",
                j.exitCode() == null ? (j.error() == null ? "" : j.error().code()) : j.exitCode().toString(),
                orEmpty(j.nodeId()));
    }

    private static Pages.Output output(String name, String text, boolean truncated, long bytes) {
        String note = truncated ? "truncated: " + bytes + " bytes were printed; the first and last parts are kept, "
                + "the gap is marked [... N bytes truncated ...]" : bytes + " bytes";
        return new Pages.Output(name, text == null ? "" : text, truncated, note);
    }

    private static List<Pages.Option> options(List<String> values, String selected) {
        return values.stream().map(v -> new Pages.Option(v, v, v.equals(selected))).toList();
    }

    private static UUID jobId(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw Refusal.notFound(id);
        }
    }

    private static UUID uuid(String field, String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": a key id like 8d0f…-… (see the audit trail), not a secret");
        }
    }

    /** A time from the form: {@code datetime-local} (taken as UTC) or RFC 3339. */
    private static OffsetDateTime time(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(value).atOffset(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new IllegalArgumentException(field + ": a time like 2026-01-31T12:00 (UTC)");
            }
        }
    }

    private static String time(OffsetDateTime t) {
        return t == null ? "–" : TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String query(Map<String, String> params) {
        StringBuilder q = new StringBuilder();
        params.forEach((k, v) -> {
            if (v != null) {
                q.append(q.isEmpty() ? "?" : "&").append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        });
        return q.toString();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    private static String orDash(String value) {
        return value == null ? "–" : value;
    }
}

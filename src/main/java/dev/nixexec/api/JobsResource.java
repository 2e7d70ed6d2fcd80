package dev.nixexec.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.JobView;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.JsonShape;
import dev.nixexec.profile.ProfileSubmissions;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestStreamElementType;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** {@code /v1/jobs}: a thin adapter over {@link JobService} (intake, cancel), {@link JobReads} and {@link JobWaits}. */
@SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer",
        bearerFormat = "nx_ API key", description = "Authorization: Bearer <API key>; the key's role decides what it may do")
@SecurityRequirement(name = "bearer")
@Tag(name = "Jobs", description = "Submitting, reading, following and cancelling code runs")
@Path("/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobsResource {

    private static final int MAX_LIMIT = 200;
    /** The most jobs one {@code POST /v1/jobs/batch} submits. */
    static final int MAX_BATCH = 100;

    private final JobService jobs;
    private final JobReads reads;
    private final JobWaits waits;
    private final CallerContext caller;
    private final KeyLimits limits;
    private final ProfileSubmissions profiles;
    private final SubmitShape shape;

    public JobsResource(JobService jobs, JobReads reads, JobWaits waits, CallerContext caller, KeyLimits limits,
            ProfileSubmissions profiles, SubmitShape shape) {
        this.profiles = profiles;
        this.shape = shape;
        this.jobs = jobs;
        this.reads = reads;
        this.waits = waits;
        this.caller = caller;
        this.limits = limits;
    }

    @Operation(summary = "Submit a job", description = "Runs code in a language with optional packages, env, stdin, files, limits and timeout. 201 with the queued job; with `wait` the finished job (200) if it ends in time. An `Idempotency-Key` makes a retry answer the stored job.")
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The job, queued or running", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    @APIResponse(responseCode = "200", description = "The job, finished within ?wait or already stored under the Idempotency-Key", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    public Response submit(SubmitBody body, @QueryParam("wait") String wait,
            @HeaderParam("Idempotency-Key") String idempotencyKey) {
        RequestParams.requireBody(body);
        Duration waitFor = RequestParams.waitParam(wait);
        JobService.Submitted submitted;
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            submitted = waits.submit(caller.get(), submission(body, shape.problems()), idempotencyKey, waitFor);
        }
        JobView job = submitted.job();
        int status = submitted.created() && !job.terminal() ? 201 : 200;
        return Response.status(status).entity(job).header("Location", "/v1/jobs/" + job.id()).build();
    }

    /**
     * The submission a body says, under its profile if it names one; refused with every problem at
     * once: its shape's ({@code shapeProblems}, see {@link BodyText}), its words' and intake's.
     */
    private Submission submission(SubmitBody body, List<FieldError> shapeProblems) {
        SubmitBody.Read read = body.read();
        if (!shapeProblems.isEmpty() || !read.problems().isEmpty()) {
            List<FieldError> found = new ArrayList<>(shapeProblems);
            found.addAll(read.problems());
            InvalidRequestException refused = jobs.refusal(found, read.submission());
            // one shape problem alone reads as it did before every problem was listed
            throw refused.errors().size() == 1 && !shapeProblems.isEmpty() ? JsonShape.refusal(shapeProblems) : refused;
        }
        return body.profile() == null ? read.submission()
                : profiles.apply(caller.get(), body.profile(), read.submission(), body.networkChoice());
    }

    /** {@code POST /v1/jobs/batch}: {@code {jobs: [submit bodies]}}. */
    @Schema(name = "BatchBody")
    public record BatchBody(List<SubmitBody> jobs) {
    }

    /** One answer of a batch, in the place of its submission: the new job's id, or why it was refused. */
    public record BatchItem(@JsonInclude(JsonInclude.Include.NON_NULL) UUID id,
            @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Object> error) {
    }

    /**
     * Up to {@value #MAX_BATCH} submissions, each checked and stored as {@code POST /v1/jobs} would
     * (its own transaction); a refused one stores nothing and answers its problem in its place.
     * 201 when any job was stored, else 200. No {@code Idempotency-Key}: it names one request.
     */
    @Operation(summary = "Submit several jobs", description = "Up to 100 submissions, each checked and stored on its own; each answer is the new job's id or the problem that refused it, in order.")
    @POST
    @Path("batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "One answer per submission, in order", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BatchItem.class, type = SchemaType.ARRAY)))
    @APIResponse(responseCode = "200", description = "Every submission was refused and nothing was stored: one problem per submission, in order", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BatchItem.class, type = SchemaType.ARRAY)))
    public Response batch(BatchBody body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        if (!caller.get().role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.get().role().id() + " key cannot submit jobs");
        }
        if (body == null || body.jobs() == null || body.jobs().isEmpty()) {
            throw new InvalidRequestException(List.of(new FieldError("jobs", "a list of 1 to " + MAX_BATCH
                    + " submissions is required")), false);
        }
        if (body.jobs().size() > MAX_BATCH) {
            throw new InvalidRequestException(List.of(new FieldError("jobs", "at most " + MAX_BATCH
                    + " submissions, not " + body.jobs().size())), false);
        }
        if (idempotencyKey != null && !idempotencyKey.isBlank()) {
            throw new InvalidRequestException(List.of(new FieldError("Idempotency-Key",
                    "a batch takes none; send each job with its own key to POST /v1/jobs")), false);
        }
        List<BatchItem> answers = new ArrayList<>();
        boolean stored = false;
        for (SubmitBody job : body.jobs()) {
            try {
                RequestParams.requireBody(job);
                Submission submission = submission(job, List.of());
                answers.add(new BatchItem(jobs.submit(caller.get(), submission, null).job().id(), null));
                stored = true;
            } catch (InvalidRequestException | Refusal e) {
                answers.add(new BatchItem(null, Problems.item(e)));
            }
        }
        return Response.status(stored ? 201 : 200).entity(answers).build();
    }

    @Operation(summary = "Rerun a job", description = "A new job with the same request as this one, on the nixpkgs revision it ran on; its `rerun_of` names the original.")
    @POST
    @Path("{id}/rerun")
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The new job", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    public Response rerun(@PathParam("id") String id) {
        JobView job = jobs.rerun(caller.get(), jobId(id)).job();
        return Response.status(201).entity(job).header("Location", "/v1/jobs/" + job.id()).build();
    }

    @Operation(summary = "Read a job", description = "The job with its status, output, exit code, usage and artifacts; `wait` long-polls until it is terminal.")
    @GET
    @Path("{id}")
    @RunOnVirtualThread
    public JobView get(@PathParam("id") String id, @QueryParam("wait") String wait) {
        Duration waitFor = RequestParams.waitParam(wait);
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            return waits.await(caller.get(), jobId(id), waitFor);
        }
    }

    @Operation(summary = "Cancel a job", description = "Asks the job to stop: a queued job is cancelled at once, a running one is killed. 202; the job ends `cancelled`.")
    @POST
    @Path("{id}/cancel")
    @RunOnVirtualThread
    @APIResponse(responseCode = "202", description = "Cancellation requested; the job as it is now", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    public Response cancel(@PathParam("id") String id) {
        return Response.accepted(jobs.cancel(caller.get(), jobId(id))).build();
    }

    /** The values of the list's {@code fields}: rows (the default) or whole jobs. */
    static final List<String> LIST_FIELDS = List.of("summary", "full");

    @Schema(name = "JobList")
    public record ListBody(@Schema(type = SchemaType.ARRAY, implementation = JobListRow.class,
            description = "JobListRow rows, or whole JobView objects with fields=full") List<?> items, String nextCursor) {
    }

    @Operation(summary = "List jobs", description = "Newest first, filtered by status, language, time and a full-text query over code, output and metadata; paged by `cursor`.")
    @GET
    @RunOnVirtualThread
    public ListBody list(@QueryParam("status") String status, @QueryParam("language") String language,
            @QueryParam("since") String since, @QueryParam("until") String until, @QueryParam("limit") Integer limit,
            @QueryParam("cursor") String cursor, @QueryParam("tenant") String tenant, @QueryParam("q") String q,
            @QueryParam("fields") String fields) {
        if (fields != null && !LIST_FIELDS.contains(fields)) {
            throw new InvalidRequestException(List.of(new FieldError("fields", "must be \"summary\" or \"full\"")), false);
        }
        boolean full = "full".equals(fields);
        JobStatus statusFilter = status == null ? null : JobStatus.byId(status).orElseThrow(() ->
                new InvalidRequestException(List.of(new FieldError("status", "unknown status '" + status + "'")), false));
        int pageSize = limit == null ? 50 : limit;
        if (pageSize < 1 || pageSize > MAX_LIMIT) {
            throw new InvalidRequestException(List.of(new FieldError("limit", "must be 1 to " + MAX_LIMIT)), false);
        }
        JobReads.Page page = reads.list(caller.tenantOrOwn(tenant),
                new JobReads.Filter(statusFilter, language, time("since", since), time("until", until), null, null, null,
                        q == null || q.isBlank() ? null : q.strip(), null), pageSize, cursor);
        return new ListBody(full ? page.items() : page.items().stream().map(JobListRow::of).toList(), page.nextCursor());
    }

    /**
     * Server-Sent Events: {@code status}, {@code stdout}, {@code stderr} and finally {@code result};
     * the id is the event's sequence number, so {@code Last-Event-ID} resumes. Events come from the
     * database, so any API node can follow a job that runs on another.
     */
    @Operation(summary = "Follow a job (Server-Sent Events)", description = "Its status changes, stdout and stderr as they are printed, and finally the result; `Last-Event-ID` resumes. With `Accept: application/x-ndjson` the same events come one JSON object a line.")
    @GET
    @Path("{id}/events")
    @io.smallrye.common.annotation.Blocking
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.TEXT_PLAIN)
    public Multi<OutboundSseEvent> events(@PathParam("id") String id, @HeaderParam("Last-Event-ID") String lastEventId,
            @jakarta.ws.rs.core.Context Sse sse) {
        return followed(id, lastEventId).map(e ->
                sse.newEventBuilder().id(Integer.toString(e.seq())).name(e.kind()).data(e.data()).build());
    }

    /**
     * The same events as NDJSON, one {@link JobEventLine} a line (what {@code nix-exec --json}
     * prints), chosen by {@code Accept: application/x-ndjson}; {@code Last-Event-ID} resumes.
     */
    @GET
    @Path("{id}/events")
    @io.smallrye.common.annotation.Blocking
    // below the event stream for a client that accepts anything (curl, */*): it came first
    @Operation(summary = "Follow a job (NDJSON)", description = "The same events as the Server-Sent Events stream, one JSON object a line; `Last-Event-ID` resumes.")
    @Produces(JobEventLine.NDJSON + ";qs=0.5")
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<JobEventLine> eventLines(@PathParam("id") String id, @HeaderParam("Last-Event-ID") String lastEventId) {
        return followed(id, lastEventId).map(JobEventLine::of);
    }

    private Multi<JobEvents.Event> followed(String id, String lastEventId) {
        int after = parseLastEventId(lastEventId);
        UUID job = jobId(id);
        // a stream is a wait of its key for as long as it is open
        KeyLimits.Wait held = limits.startWait(caller.get());
        try {
            return waits.follow(caller.get(), job, after).onTermination().invoke(held::close);
        } catch (RuntimeException e) {
            held.close();
            throw e;
        }
    }

    private static int parseLastEventId(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(value.strip()));
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(List.of(new FieldError("Last-Event-ID", "must be an event id")), false);
        }
    }

    static UUID jobId(String id) {
        return Refusal.uuidOr404(id, "no job " + id);
    }

    private static OffsetDateTime time(String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidRequestException(List.of(new FieldError(field, "an RFC 3339 time like 2026-01-31T12:00:00Z")), false);
        }
    }
}

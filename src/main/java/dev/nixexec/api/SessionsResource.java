package dev.nixexec.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.nixexec.job.JobService;
import dev.nixexec.job.JobView;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.session.SessionExec;
import dev.nixexec.session.SessionRequest;
import dev.nixexec.profile.SpecBody;
import dev.nixexec.session.SessionService;
import dev.nixexec.session.SessionView;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code /v1/sessions}: a thin adapter over {@link SessionService}. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Sessions", description = "Long-lived environments and their commands")
@Path("/v1/sessions")
@Produces(MediaType.APPLICATION_JSON)
public class SessionsResource {

    private final SessionService sessions;
    private final CallerContext caller;
    private final KeyLimits limits;

    public SessionsResource(SessionService sessions, CallerContext caller, KeyLimits limits) {
        this.sessions = sessions;
        this.caller = caller;
        this.limits = limits;
    }

    /**
     * The create body as received; {@code idle_ttl} as a duration ("90s", "2h") or seconds;
     * {@code host_workspace} an absolute host directory (local mode only).
     */
    @Schema(name = "SessionCreateBody")
    public record CreateBody(List<String> packages, String profile, SpecBody spec, String network,
            Map<String, String> env, String name, String agent, String description, JsonNode idleTtl,
            String hostWorkspace) {

        SessionRequest request() {
            return new SessionRequest(packages, profile, spec, network, env, name, agent, description,
                    SubmitBody.duration("idle_ttl", idleTtl), hostWorkspace);
        }
    }

    /** The exec body as received; {@code limits} as in a job's submit body. */
    @Schema(name = "SessionExecBody")
    public record ExecBody(List<String> command, String language, String code, String stdin, Map<String, String> env,
            JsonNode timeout, JsonNode limits) {

        SessionExec exec() {
            return new SessionExec(command, language, code, stdin, env, SubmitBody.duration("timeout", timeout),
                    SubmitBody.limits(limits));
        }
    }

    /** 201 with the session; {@code wait} waits for it to be ready or failed. */
    @Operation(summary = "Create a session", description = "A long-lived environment from a spec (language, packages, catalog entries) with its own workspace; `wait` waits until it is ready or failed.")
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The session", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = SessionView.class)))
    public Response create(CreateBody body, @QueryParam("wait") String wait) {
        SessionRequest request = RequestParams.requireBody(body).request();
        Duration waitFor = RequestParams.waitParam(wait);
        SessionView session;
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            session = sessions.create(caller.get(), request, waitFor);
        }
        return Response.status(201).entity(session).header("Location", "/v1/sessions/" + session.id()).build();
    }

    @Operation(summary = "List sessions", description = "The tenant's sessions with their status and environment.")
    @GET
    @RunOnVirtualThread
    public List<SessionView> list() {
        return sessions.list(caller.get());
    }

    @Operation(summary = "Read a session", description = "Its status, spec, environment and the job that built it.")
    @GET
    @Path("{id}")
    @RunOnVirtualThread
    public SessionView get(@PathParam("id") String id) {
        return sessions.get(caller.get(), id);
    }

    @Operation(summary = "Destroy a session", description = "Ends its attached shells and running commands and frees its name; its jobs stay in the audit record.")
    @DELETE
    @Path("{id}")
    @RunOnVirtualThread
    public Response destroy(@PathParam("id") String id) {
        sessions.destroy(caller.get(), id);
        return Response.noContent().build();
    }

    @Operation(summary = "Run a command in a session", description = "A job in the session's environment and workspace: 201 with the job, or 200 when `wait` saw it end.")
    @POST
    @Path("{id}/exec")
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The command's job, still running", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    @APIResponse(responseCode = "200", description = "The command's job, finished within ?wait", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    public Response exec(@PathParam("id") String id, ExecBody body, @QueryParam("wait") String wait) {
        SessionExec exec = RequestParams.requireBody(body).exec();
        Duration waitFor = RequestParams.waitParam(wait);
        JobService.Submitted submitted;
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            submitted = sessions.exec(caller.get(), id, exec, waitFor);
        }
        JobView job = submitted.job();
        return Response.status(job.terminal() ? 200 : 201).entity(job).header("Location", "/v1/jobs/" + job.id()).build();
    }
}

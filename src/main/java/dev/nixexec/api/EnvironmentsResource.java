package dev.nixexec.api;

import dev.nixexec.limits.KeyLimits;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.session.EnvironmentBuild;
import dev.nixexec.session.EnvironmentBuildRequest;
import dev.nixexec.session.EnvironmentBuilds;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code /v1/environments}: environments built ahead; a thin adapter over {@link EnvironmentBuilds}. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Environments", description = "Nix environments built ahead of jobs")
@Path("/v1/environments")
@Produces(MediaType.APPLICATION_JSON)
public class EnvironmentsResource {

    private final EnvironmentBuilds builds;
    private final CallerContext caller;
    private final KeyLimits limits;

    public EnvironmentsResource(EnvironmentBuilds builds, CallerContext caller, KeyLimits limits) {
        this.builds = builds;
        this.caller = caller;
        this.limits = limits;
    }

    @Operation(summary = "Build an environment ahead", description = "Builds the Nix environment of a language and packages before any job needs it: 201 while building, 200 once `wait` saw it ready or failed.")
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The build, started", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = EnvironmentBuild.class)))
    @APIResponse(responseCode = "200", description = "The build, already known or finished within ?wait", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = EnvironmentBuild.class)))
    public Response build(EnvironmentBuildRequest body, @QueryParam("wait") String wait) {
        RequestParams.requireBody(body);
        Duration waitFor = RequestParams.waitParam(wait);
        EnvironmentBuild build;
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            build = builds.build(caller.get(), body, waitFor);
        }
        return Response.status(build.status().equals("building") ? 201 : 200).entity(build)
                .header("Location", "/v1/environments/" + build.id()).build();
    }

    @Operation(summary = "Read an environment build", description = "Its status, store path and nixpkgs revision once built, its error once failed; `wait` long-polls until it ends.")
    @GET
    @Path("{id}")
    @RunOnVirtualThread
    public EnvironmentBuild get(@PathParam("id") String id, @QueryParam("wait") String wait) {
        Duration waitFor = RequestParams.waitParam(wait);
        try (KeyLimits.Wait held = limits.startWait(caller.get(), waitFor)) {
            return builds.get(caller.get(), Refusal.uuidOr404(id, "no environment build " + id), waitFor);
        }
    }
}

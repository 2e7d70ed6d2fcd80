package dev.nixexec.api;

import dev.nixexec.workspace.WorkspacePath;
import dev.nixexec.workspace.WorkspaceService;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /v1/jobs/{id}/artifacts/{path}}: a file a job returned, for its tenant only. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Artifacts", description = "Files jobs leave behind")
@Path("/v1/jobs/{id}/artifacts")
public class ArtifactsResource {

    private final WorkspaceService workspaces;
    private final CallerContext caller;

    public ArtifactsResource(WorkspaceService workspaces, CallerContext caller) {
        this.workspaces = workspaces;
        this.caller = caller;
    }

    @Operation(summary = "Download an artifact", description = "One file the job left under its artifact paths (by default /workspace/out), as stored when the job ended.")
    @GET
    @Path("{path: .+}")
    @Produces(MediaType.WILDCARD)
    @RunOnVirtualThread
    public Response download(@PathParam("id") String id, @PathParam("path") String path) {
        return WorkspacesResource.FileResponses.of(workspaces.artifact(caller.get(), JobsResource.jobId(id),
                WorkspacePath.parse("path", path)));
    }
}

package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.workspace.FileContent;
import dev.nixexec.workspace.WorkspaceFile;
import dev.nixexec.workspace.WorkspaceListing;
import dev.nixexec.workspace.WorkspacePath;
import dev.nixexec.workspace.WorkspaceService;
import dev.nixexec.workspace.WorkspaceView;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code /v1/workspaces}: a thin adapter over {@link WorkspaceService}. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Workspaces", description = "Files shared between jobs")
@Path("/v1/workspaces")
@Produces(MediaType.APPLICATION_JSON)
public class WorkspacesResource {

    private final WorkspaceService workspaces;
    private final CallerContext caller;

    public WorkspacesResource(WorkspaceService workspaces, CallerContext caller) {
        this.workspaces = workspaces;
        this.caller = caller;
    }

    /** The body of {@code POST /v1/workspaces}; unset quotas take the configured defaults. */
    @Schema(name = "WorkspaceCreateBody")
    public record CreateBody(String name, Long quotaBytes, Integer quotaFiles) {
    }

    @Schema(name = "WorkspaceList")
    public record ListBody(List<WorkspaceView> items) {
    }

    /** A workspace's files, with the version they are of. */
    @Schema(name = "WorkspaceFiles")
    public record FilesBody(int version, List<WorkspaceFile> items) {
    }

    @Operation(summary = "Create a workspace", description = "A named directory of files that jobs mount at /workspace and whose outputs become new versions.")
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The workspace", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = WorkspaceView.class)))
    public Response create(CreateBody body) {
        RequestParams.requireBody(body);
        WorkspaceView created = workspaces.create(caller.get(), body.name(), body.quotaBytes(), body.quotaFiles());
        return Response.status(201).entity(created).header("Location", "/v1/workspaces/" + created.id()).build();
    }

    @Operation(summary = "List workspaces", description = "The tenant's workspaces with their size and version.")
    @GET
    @RunOnVirtualThread
    public ListBody list() {
        return new ListBody(workspaces.list(caller.get()));
    }

    @Operation(summary = "Read a workspace", description = "Its name, size, version and the job that made the version.")
    @GET
    @Path("{id}")
    @RunOnVirtualThread
    public WorkspaceView get(@PathParam("id") String id) {
        return workspaces.get(caller.get(), workspaceId(id));
    }

    @Operation(summary = "Delete a workspace", description = "Its files are removed; jobs that used it keep their record.")
    @DELETE
    @Path("{id}")
    @RunOnVirtualThread
    public Response delete(@PathParam("id") String id) {
        workspaces.delete(caller.get(), workspaceId(id));
        return Response.noContent().build();
    }

    @Operation(summary = "List a workspace's files", description = "Every file with its path, size and digest.")
    @GET
    @Path("{id}/files")
    @RunOnVirtualThread
    public FilesBody files(@PathParam("id") String id) {
        WorkspaceListing listing = workspaces.files(caller.get(), workspaceId(id));
        return new FilesBody(listing.workspace().version(), listing.files());
    }

    @Operation(summary = "Upload a file", description = "Writes the request body as the file at `path`, replacing any; the workspace gets a new version.")
    @PUT
    @Path("{id}/files/{path: .+}")
    @Consumes(MediaType.WILDCARD)
    @RunOnVirtualThread
    public WorkspaceFile upload(@PathParam("id") String id, @PathParam("path") String path, byte[] content) {
        return workspaces.write(caller.get(), workspaceId(id), WorkspacePath.parse("path", path),
                content == null ? new byte[0] : content);
    }

    @Operation(summary = "Download a file", description = "The file's bytes as stored.")
    @GET
    @Path("{id}/files/{path: .+}")
    @Produces(MediaType.WILDCARD)
    @RunOnVirtualThread
    public Response download(@PathParam("id") String id, @PathParam("path") String path) {
        return FileResponses.of(workspaces.read(caller.get(), workspaceId(id), WorkspacePath.parse("path", path)));
    }

    @Operation(summary = "Delete a file", description = "Removes the file; the workspace gets a new version.")
    @DELETE
    @Path("{id}/files/{path: .+}")
    @RunOnVirtualThread
    public Response deleteFile(@PathParam("id") String id, @PathParam("path") String path) {
        workspaces.deleteFile(caller.get(), workspaceId(id), WorkspacePath.parse("path", path));
        return Response.noContent().build();
    }

    static UUID workspaceId(String id) {
        return Refusal.uuidOr404(id, "no workspace " + id);
    }

    /** A stored file as a download: its media type, hash as ETag, never rendered in the API's origin. */
    static final class FileResponses {
        private FileResponses() {
        }

        static Response of(FileContent file) {
            String name = file.path().substring(file.path().lastIndexOf('/') + 1).replaceAll("[^A-Za-z0-9._-]", "_");
            return Response.ok(file.content()).type(file.contentType())
                    .header("ETag", "\"" + file.sha256() + "\"")
                    .header("X-Content-Type-Options", "nosniff")
                    .header("Content-Security-Policy", "sandbox; default-src 'none'")
                    .header("Content-Disposition", "attachment; filename=\"" + name + "\"")
                    .build();
        }
    }
}

package dev.nixexec.mcp;

import static dev.nixexec.mcp.ToolErrors.refusalsAsErrors;

import dev.nixexec.tenant.Caller;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.workspace.Base64Content;
import dev.nixexec.workspace.FileContent;
import dev.nixexec.workspace.WorkspaceFile;
import dev.nixexec.workspace.WorkspaceListing;
import dev.nixexec.workspace.WorkspacePath;
import dev.nixexec.workspace.WorkspaceService;
import dev.nixexec.workspace.WorkspaceView;
import io.quarkiverse.mcp.server.McpConnection;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.RunOnVirtualThread;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Workspace tools: list, read and write the files of a workspace (by default this MCP session's
 * own, the one {@code run_code} mounts at /workspace).
 */
public class WorkspaceTools {

    static final String WORKSPACE = "Workspace id or name; omitted: this session's own workspace, the one run_code "
            + "mounts at /workspace by default.";
    private static final String PATH = "File path relative to /workspace, e.g. data/input.csv.";

    private final WorkspaceService workspaces;
    private final SessionWorkspaces sessionWorkspaces;
    private final SecurityIdentity identity;
    private final KnownArguments knownArguments;

    public WorkspaceTools(WorkspaceService workspaces, SessionWorkspaces sessionWorkspaces, SecurityIdentity identity,
            KnownArguments knownArguments) {
        this.knownArguments = knownArguments;
        this.workspaces = workspaces;
        this.sessionWorkspaces = sessionWorkspaces;
        this.identity = identity;
    }

    /** The named workspace, or the session's own (made on first use). */
    private WorkspaceView chosen(Caller caller, String workspace, McpConnection connection) {
        if (workspace == null || workspace.isBlank()) {
            return workspaces.session(caller, sessionWorkspaces.name(connection));
        }
        return workspaces.find(caller, workspace);
    }

    @Tool(name = "list_workspace_files", description = "The files of a workspace with their sizes and sha256, "
            + "and the workspace's version and quota.",
            outputSchema = @Tool.OutputSchema(from = Listing.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse listFiles(@ToolArg(description = WORKSPACE, required = false) String workspace,
            McpConnection connection, RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            WorkspaceListing listing = workspaces.files(caller(), chosen(caller(), workspace, connection).id());
            WorkspaceView ws = listing.workspace();
            List<WorkspaceFile> files = listing.files();
            String text = "Workspace " + ws.name() + " (" + ws.id() + "), version " + ws.version() + ", "
                    + ws.bytes() + " of " + ws.quotaBytes() + " bytes, " + ws.files() + " of " + ws.quotaFiles()
                    + " files" + (files.isEmpty() ? "; empty." : ":\n" + files.stream()
                            .map(f -> f.path() + " " + f.size() + " bytes sha256:" + f.sha256())
                            .collect(Collectors.joining("\n")));
            return new ToolResponse(false, List.of(new TextContent(text)), new Listing(ws, files), null);
        });
    }

    /** The structured content of {@code list_workspace_files}. */
    public record Listing(WorkspaceView workspace, List<WorkspaceFile> files) {
    }

    @Tool(name = "read_workspace_file", description = "Read a workspace file: text as text, images as images, "
            + "other files as a base64 resource.",
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse readFile(@ToolArg(description = PATH) String path,
            @ToolArg(description = WORKSPACE, required = false) String workspace, McpConnection connection,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            WorkspaceView ws = chosen(caller(), workspace, connection);
            FileContent file = workspaces.read(caller(), ws.id(), WorkspacePath.parse("path", path));
            return ToolResponse.success(List.of(FileContents.of(file,
                    "nixexec://workspaces/" + ws.id() + "/files/" + file.path())));
        });
    }

    @Tool(name = "write_workspace_file", description = "Create or replace a workspace file, e.g. input data for "
            + "run_code; it appears under /workspace in the next run.",
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse writeFile(@ToolArg(description = PATH) String path,
            @ToolArg(description = "The file's content.") String content,
            @ToolArg(description = "utf-8 (default) or base64 (for binary content).", required = false) String encoding,
            @ToolArg(description = WORKSPACE, required = false) String workspace, McpConnection connection,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            CallerIdentity.writer(identity, "write_workspace_file");
            WorkspaceView ws = chosen(caller(), workspace, connection);
            byte[] bytes;
            if (encoding == null || encoding.equalsIgnoreCase("utf-8")) {
                bytes = (content == null ? "" : content).getBytes(StandardCharsets.UTF_8);
            } else if (encoding.equalsIgnoreCase("base64")) {
                bytes = Base64Content.decode("content", content);
            } else {
                throw new InvalidRequestException(List.of(new FieldError("encoding", "must be utf-8 or base64")), false);
            }
            WorkspaceFile file = workspaces.write(caller(), ws.id(), WorkspacePath.parse("path", path), bytes);
            return ToolResponse.success("Wrote " + file.path() + " (" + file.size() + " bytes) to workspace " + ws.name());
        });
    }

    private Caller caller() {
        return CallerIdentity.caller(identity);
    }
}

package dev.nixexec.workspace;

import java.util.List;

/** A workspace and its files as one consistent listing. */
public record WorkspaceListing(WorkspaceView workspace, List<WorkspaceFile> files) {
}

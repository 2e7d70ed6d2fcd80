package dev.nixexec.workspace;

import java.time.OffsetDateTime;

/** One file of a workspace listing. */
public record WorkspaceFile(String path, long size, String sha256, String contentType, OffsetDateTime updatedAt) {
}

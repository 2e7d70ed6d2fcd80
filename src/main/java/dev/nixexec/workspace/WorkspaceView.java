package dev.nixexec.workspace;

import java.time.OffsetDateTime;
import java.util.UUID;

/** A workspace as clients see it: quotas, what it holds now, and its version (one per stored change). */
public record WorkspaceView(UUID id, String name, long quotaBytes, int quotaFiles, long bytes, int files, int version,
        OffsetDateTime createdAt, OffsetDateTime updatedAt) {
}

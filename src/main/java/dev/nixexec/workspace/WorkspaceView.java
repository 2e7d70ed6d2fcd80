package dev.nixexec.workspace;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A workspace as clients see it: quotas, what it holds now, its version (one per stored change)
 * and the job that made that version (null: an upload, or none yet).
 */
public record WorkspaceView(UUID id, String name, long quotaBytes, int quotaFiles, long bytes, int files, int version,
        UUID versionJobId, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
}

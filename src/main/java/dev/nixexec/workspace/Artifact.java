package dev.nixexec.workspace;

/** A file a job returned: its path under /workspace, size, hash, media type and download URL. */
public record Artifact(String name, long size, String sha256, String contentType, String url) {
}

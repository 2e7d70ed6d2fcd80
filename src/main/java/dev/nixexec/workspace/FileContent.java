package dev.nixexec.workspace;

/** A stored file's bytes, for a download. */
public record FileContent(String path, byte[] content, String sha256, String contentType) {
}

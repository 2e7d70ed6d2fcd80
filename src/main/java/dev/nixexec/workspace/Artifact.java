package dev.nixexec.workspace;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A file a job returned: its path under /workspace, size, hash, media type and download URL. */
public record Artifact(String name, long size, String sha256, String contentType, String url) {

    /** The job's artifact at {@code path}, with its media type and URL. */
    static Artifact of(UUID jobId, String path, long size, String sha256) {
        return new Artifact(path, size, sha256, ContentTypes.of(path), "/v1/jobs/" + jobId + "/artifacts/" + urlPath(path));
    }

    /** The path with every byte outside the unreserved characters percent-encoded, slashes kept. */
    static String urlPath(String path) {
        StringBuilder out = new StringBuilder();
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~/".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }
}

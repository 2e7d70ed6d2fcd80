package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * {@code run --out DIR}: a job's artifacts saved in DIR as they were under /workspace/out
 * ({@code out/plot.png} becomes {@code DIR/plot.png}). A name is the server's, not trusted: one
 * that would land outside DIR is refused, and no link is followed where a file is written.
 */
final class ArtifactDownload {

    private static final String OUT = "out/";

    private final Server server;
    private final Path dir;

    ArtifactDownload(Server server, Path dir) {
        this.server = server;
        this.dir = dir.toAbsolutePath().normalize();
    }

    /** Before the job is submitted: DIR is a directory, or can be made one. */
    static void check(Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new CommandFailure(Exit.USAGE, "--out: " + Printable.line(dir.toString()) + " is not a directory");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CommandFailure(Exit.USAGE, "--out: cannot make " + Printable.line(dir.toString()) + ": " + e);
        }
        if (!Files.isWritable(dir)) {
            throw new CommandFailure(Exit.USAGE, "--out: " + Printable.line(dir.toString()) + " is not writable");
        }
    }

    /** Saves every artifact in {@code artifacts} (the job's {@code artifacts} array). */
    void save(JsonNode artifacts) {
        for (JsonNode artifact : artifacts) {
            String name = artifact.path("name").asText();
            Path target = dir.resolve(name.startsWith(OUT) ? name.substring(OUT.length()) : name).normalize();
            if (name.isEmpty() || !target.startsWith(dir) || target.equals(dir)) {
                throw new CommandFailure(Exit.SERVER_ERROR, "the server named an artifact '" + Printable.line(name)
                        + "' that is no path under --out");
            }
            try (InputStream in = server.stream(artifact.path("url").asText(), "*/*", Map.of())) {
                Files.createDirectories(target.getParent());
                try (OutputStream file = Files.newOutputStream(target, LinkOption.NOFOLLOW_LINKS,
                        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                    in.transferTo(file);
                }
            } catch (IOException e) {
                throw new CommandFailure(Exit.USAGE, "--out: cannot save " + Printable.line(target.toString()) + ": " + e);
            }
        }
    }
}

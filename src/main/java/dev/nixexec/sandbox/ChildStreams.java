package dev.nixexec.sandbox;

import io.smallrye.mutiny.subscription.MultiEmitter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/** Feeding, draining and cleaning up after a sandboxed child, shared by both backends. */
final class ChildStreams {

    private static final Logger LOG = Logger.getLogger(ChildStreams.class);
    private static final int CHUNK = 64 * 1024;

    private ChildStreams() {
    }

    /**
     * Reads a stream to its end into the bounded capture; the first {@code liveLimit} bytes are also
     * emitted as they arrive, so live followers never cost more than the capture does.
     */
    static void pump(InputStream in, OutputCapture capture, StreamName stream, long liveLimit,
            MultiEmitter<? super SandboxEvent> emitter) {
        byte[] buffer = new byte[CHUNK];
        long emitted = 0;
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                capture.append(buffer, 0, n);
                if (emitted < liveLimit && !emitter.isCancelled()) {
                    int live = (int) Math.min(n, liveLimit - emitted);
                    emitter.emit(new SandboxEvent.Output(stream, Arrays.copyOf(buffer, live)));
                    emitted += live;
                }
            }
        } catch (IOException ignored) {
            // the sandbox was killed; what was read is kept
        }
    }

    /** Writes {@code prefix} then {@code stdin}, then closes the child's input. */
    static void feed(OutputStream out, byte[] prefix, byte[] stdin) {
        try (out) {
            out.write(prefix);
            out.flush();
            if (stdin != null && stdin.length > 0) {
                out.write(stdin);
            }
        } catch (IOException ignored) {
            // the code exited without reading all of its input
        }
    }

    /** Depth first, never following links; directories the code made unreadable are opened up first. */
    static void deleteTree(Path path) {
        try {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
                try (Stream<Path> children = Files.list(path)) {
                    children.toList().forEach(ChildStreams::deleteTree);
                }
            }
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warnf("cannot delete %s: %s", path, e.getMessage());
        }
    }
}

package dev.nixexec.sandbox;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/** Feeding, draining and cleaning up after a sandboxed child, shared by both backends. */
final class ChildStreams {

    private static final Logger LOG = Logger.getLogger(ChildStreams.class);
    private static final int CHUNK = 64 * 1024;

    private ChildStreams() {
    }

    /** A sandbox run on its own thread: reports output through the emitter and returns the result. */
    interface Run {
        /**
         * @param killer where the run puts the action that kills it, once it has something to kill
         * @param cancelled set when the subscriber went away; the run must then stop
         */
        SandboxResult run(MultiEmitter<? super SandboxEvent> emitter, AtomicReference<Runnable> killer,
                AtomicBoolean cancelled) throws Exception;
    }

    /**
     * The event stream of one run: it starts on subscription, on a virtual thread, ends with
     * {@link SandboxEvent.Exited}, and cancelling the subscription kills the run.
     */
    static Multi<SandboxEvent> events(Run run) {
        return Multi.createFrom().emitter(emitter -> {
            AtomicReference<Runnable> killer = new AtomicReference<>();
            AtomicBoolean cancelled = new AtomicBoolean();
            emitter.onTermination(() -> {
                cancelled.set(true);
                Runnable kill = killer.get();
                if (kill != null) {
                    kill.run();
                }
            });
            Thread.ofVirtual().name("sandbox").start(() -> {
                try {
                    SandboxResult result = run.run(emitter, killer, cancelled);
                    emitter.emit(new SandboxEvent.Exited(result));
                    emitter.complete();
                } catch (Exception e) {
                    emitter.fail(e);
                }
            });
        });
    }

    /** The signal behind an exit code above 128, the way shells report it. */
    static Optional<Integer> signalOf(int exitCode) {
        return exitCode > 128 && exitCode < 128 + 65 ? Optional.of(exitCode - 128) : Optional.empty();
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

package dev.nixexec.nix;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of a nix command: argv as a list (never a shell), output bounded, the whole process tree
 * killed when the time is up.
 */
final class NixInvocation {

    private static final int MAX_STDOUT = 16 * 1024 * 1024;
    private static final int STDERR_TAIL = 64 * 1024;

    record Outcome(int exitCode, boolean timedOut, String stdout, String stderrTail) {
        boolean succeeded() {
            return !timedOut && exitCode == 0;
        }
    }

    private NixInvocation() {
    }

    static Outcome run(List<String> argv, Path workingDir, Duration timeout) throws IOException, InterruptedException {
        return run(argv, java.util.Map.of(), workingDir, timeout);
    }

    /** As {@link #run(List, Path, Duration)}, with {@code env} added to the service's environment. */
    static Outcome run(List<String> argv, java.util.Map<String, String> env, Path workingDir, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(argv).directory(workingDir.toFile());
        builder.environment().putAll(env);
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process process = builder.start();
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        TailBuffer stderr = new TailBuffer(STDERR_TAIL);
        Thread outReader = Thread.ofVirtual().start(() -> copy(process.getInputStream(), stdout, MAX_STDOUT));
        Thread errReader = Thread.ofVirtual().start(() -> drain(process.getErrorStream(), stderr));
        boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        outReader.join(Duration.ofSeconds(10));
        errReader.join(Duration.ofSeconds(10));
        return new Outcome(finished ? process.exitValue() : -1, !finished,
                stdout.toString(StandardCharsets.UTF_8), stderr.toString());
    }

    /** Deletes a build's or listing's working directory, if any. */
    static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a leftover directory is harmless
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out, int max) {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                int room = max - out.size();
                if (room > 0) {
                    out.write(buffer, 0, Math.min(n, room));
                }
            }
        } catch (IOException ignored) {
            // the process was killed; what was read is kept
        }
    }

    private static void drain(InputStream in, TailBuffer tail) {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                tail.append(buffer, n);
            }
        } catch (IOException ignored) {
            // the process was killed; what was read is kept
        }
    }

    /** Keeps the last {@code capacity} bytes written. */
    private static final class TailBuffer {
        private final byte[] ring;
        private long total;

        TailBuffer(int capacity) {
            ring = new byte[capacity];
        }

        synchronized void append(byte[] data, int length) {
            for (int i = 0; i < length; i++) {
                ring[(int) (total++ % ring.length)] = data[i];
            }
        }

        @Override
        public synchronized String toString() {
            int size = (int) Math.min(total, ring.length);
            byte[] out = new byte[size];
            long start = total - size;
            for (int i = 0; i < size; i++) {
                out[i] = ring[(int) ((start + i) % ring.length)];
            }
            return new String(out, StandardCharsets.UTF_8);
        }
    }
}

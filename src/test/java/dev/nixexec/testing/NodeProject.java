package dev.nixexec.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A folder of JavaScript checks under {@code src/test/js} with its own package-lock.json: installs
 * its dependencies with {@code npm ci} when they are missing or older than the lock file, then runs
 * a script with {@code node}. Node and npm are test requirements (.ci/run installs them).
 */
public final class NodeProject {

    /** What a script printed (stdout and stderr interleaved) and how it exited. */
    public record Outcome(int exitCode, String output) {
    }

    private static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();

    private final Path dir;

    public NodeProject(String folder) {
        this.dir = REPO.resolve("src/test/js").resolve(folder);
    }

    public Outcome run(String script, long timeoutSeconds, String... args) throws IOException, InterruptedException {
        ensureInstalled();
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        return exec(command, timeoutSeconds);
    }

    private synchronized void ensureInstalled() throws IOException, InterruptedException {
        // surefire's and failsafe's JVMs may both get here at once (.ci/run runs them side by side):
        // one runs npm ci, the other waits for it and finds the packages installed
        Path lockFile = Files.createDirectories(REPO.resolve("target")).resolve("npm-" + dir.getFileName() + ".lock");
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = channel.lock()) {
            Path installed = dir.resolve("node_modules/.package-lock.json");
            Path lock = dir.resolve("package-lock.json");
            if (Files.exists(installed)
                    && Files.getLastModifiedTime(installed).compareTo(Files.getLastModifiedTime(lock)) >= 0) {
                return;
            }
            Outcome install = exec(List.of("npm", "ci", "--no-audit", "--no-fund"), 600);
            if (install.exitCode() != 0) {
                throw new IllegalStateException("npm ci in " + dir + " failed:\n" + install.output());
            }
        }
    }

    private Outcome exec(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        StringBuilder output = new StringBuilder();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                output.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                output.append("(output unreadable: ").append(e.getMessage()).append(')');
            }
        });
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor();
        }
        reader.join();
        return new Outcome(process.exitValue(), output.toString());
    }
}

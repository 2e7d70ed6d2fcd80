package dev.nixexec.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code target/nix-exec} command (made by the package phase), run as a user runs it:
 * its own process, the server and key in {@code NIXEXEC_SERVER}/{@code NIXEXEC_KEY}, the JDK
 * this test runs on.
 */
public final class CommandLine {

    public static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    public static final Path COMMAND = REPO.resolve("target/nix-exec");
    /** The same command under nixo's name (src/main/launcher/nixo). */
    public static final Path NIXO = REPO.resolve("target/nixo");

    /** What a run of the command did. */
    public record Outcome(int exit, String stdout, String stderr) {

        public List<String> stdoutLines() {
            return stdout.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
        }
    }

    private final Map<String, String> env;

    private CommandLine(Map<String, String> env) {
        this.env = env;
    }

    /** The command against {@code server} with {@code key} (null: none). */
    public static CommandLine against(String server, String key) {
        assertTrue(Files.isExecutable(COMMAND), COMMAND + " is missing: run this test with ./mvnw verify");
        Map<String, String> env = new HashMap<>();
        env.put("NIXEXEC_SERVER", server);
        if (key != null) {
            env.put("NIXEXEC_KEY", key);
        }
        env.put("JAVA_HOME", System.getProperty("java.home"));
        return new CommandLine(env);
    }

    /** The same, with more environment variables. */
    public CommandLine with(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(env);
        all.putAll(more);
        return new CommandLine(all);
    }

    public Outcome run(String... args) throws IOException, InterruptedException {
        return runWithInput(null, args);
    }

    /** Runs {@code target/nixo} with these arguments. */
    public Outcome nixo(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(NIXO.toString()));
        argv.addAll(List.of(args));
        return exec(argv, null);
    }

    /** Runs with {@code stdin} as its standard input (null: an empty one). */
    public Outcome runWithInput(String stdin, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(COMMAND.toString()));
        argv.addAll(List.of(args));
        return exec(argv, stdin);
    }

    /** Any program with this command's environment (e.g. {@code script} around it). */
    public Process start(List<String> argv) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(argv);
        builder.environment().putAll(env);
        return builder.start();
    }

    private Outcome exec(List<String> argv, String stdin) throws IOException, InterruptedException {
        Process process = start(argv);
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        try (OutputStream in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("nix-exec " + argv + " did not end in 180 s");
        }
        return new Outcome(process.exitValue(), out.join(), err.join());
    }

    /** Read on a thread of its own: the common pool may have one thread, and both pipes must drain at once. */
    private static CompletableFuture<String> drain(InputStream stream) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (stream) {
                text.complete(new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.completeExceptionally(e);
            }
        });
        return text;
    }
}

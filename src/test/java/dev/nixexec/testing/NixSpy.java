package dev.nixexec.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * Puts logging wrappers in front of the real nix and nix-store, so tests can count how many nix
 * processes the service started (the real Nix does every build), and gives each application start a
 * fresh state directory, so no environment is cached from an earlier run.
 */
public class NixSpy implements QuarkusTestResourceLifecycleManager {

    /** One per test JVM tier: surefire's and failsafe's JVMs may run side by side. */
    public static final Path DIR = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target",
            "nix-spy-" + System.getProperty("nixexec-test.tier", "default")).toAbsolutePath();
    public static final Path LOG = DIR.resolve("invocations.log");
    /** Before the environment request in a line of the log. */
    private static final String REQUEST = " request=";

    private Path state;

    @Override
    public Map<String, String> start() {
        try {
            Files.createDirectories(DIR);
            Files.writeString(LOG, "");
            for (String tool : List.of("nix", "nix-store")) {
                Path real = onPath(tool);
                Path wrapper = DIR.resolve(tool);
                // With the environment request the service hands nix (a JSON file it names in the
                // environment), so a test can tell its own build from another test's still running.
                Files.writeString(wrapper, "#!/bin/sh\nrequest=\n"
                        + "[ -n \"$NIXEXEC_REQUEST_FILE\" ] && request=\"" + REQUEST + "$(tr -d '\\n' < \"$NIXEXEC_REQUEST_FILE\")\"\n"
                        + "echo \"" + tool + " $*$request\" >> '" + LOG + "'\nexec '" + real + "' \"$@\"\n");
                Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            state = FreshStateDirs.create();
            return Map.of("nixexec.executor.nix-command", DIR.resolve("nix").toString(),
                    "nixexec.state-dir", state.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The application's state directory, removed once its PostgreSQL stopped: at once after a
     * {@code @QuarkusTest}, at this JVM's exit after an integration test, whose application (a
     * process of its own) Quarkus stops only after its resources.
     */
    @Override
    public void stop() {
        if (state != null) {
            FreshStateDirs.removeOnceStopped(state);
        }
    }

    /**
     * Every nix and nix-store invocation so far that work asked for, one line each: its arguments.
     * The readiness probe's {@code nix store ping} (every few seconds, whatever the tests do) is
     * left out.
     */
    public static List<String> invocations() {
        return lines().stream().map(line -> line.contains(REQUEST) ? line.substring(0, line.indexOf(REQUEST)) : line)
                .toList();
    }

    /**
     * The environment request (its JSON) of every build or evaluation so far, in order: which
     * environments nix was asked for, whoever asked.
     */
    public static List<String> requests() {
        return lines().stream().filter(line -> line.contains(REQUEST))
                .map(line -> line.substring(line.indexOf(REQUEST) + REQUEST.length())).toList();
    }

    private static List<String> lines() {
        try {
            return Files.readAllLines(LOG).stream().filter(line -> !line.startsWith("nix store ping")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, tool);
            if (Files.isExecutable(candidate) && !candidate.startsWith(DIR)) {
                return candidate;
            }
        }
        throw new IllegalStateException(tool + " is not on PATH; the tests need a real Nix (apt-get install nix-bin)");
    }
}

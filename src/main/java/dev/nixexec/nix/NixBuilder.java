package dev.nixexec.nix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Has one environment request's store path on this node, in a fresh directory: copied from the
 * fleet's cache when it has it ({@link FleetCache}), else built with {@code nix build} (and then
 * published to the cache).
 */
@ApplicationScoped
class NixBuilder {

    private static final Pattern UNKNOWN_PACKAGE = Pattern.compile("nixexec-unknown-package:([A-Za-z0-9_.\\-]+)");
    private static final int LOG_TAIL_LINES = 40;
    /** Names the request file for nix/job-flake.nix. */
    static final String REQUEST_VARIABLE = "NIXEXEC_REQUEST_FILE";

    /** {@code copied}: the store path came from the fleet's cache, no build ran on this node. */
    record Built(String storePath, List<String> closure, long buildMs, boolean copied) {
    }

    private final NixExecConfig config;
    private final NixCommand nix;
    private final NixExpressions expressions;
    private final StatePaths paths;
    private final ObjectMapper json;
    private final FleetCache fleet;

    NixBuilder(NixExecConfig config, NixCommand nix, NixExpressions expressions, StatePaths paths, ObjectMapper json,
            FleetCache fleet) {
        this.config = config;
        this.fleet = fleet;
        this.nix = nix;
        this.expressions = expressions;
        this.paths = paths;
        this.json = json;
    }

    /** Builds the environment and registers {@code gcRoot} so nix-collect-garbage keeps it. */
    Built build(EnvironmentRequest request, NixpkgsPin pin, Path gcRoot) throws EnvironmentException {
        long started = System.nanoTime();
        Path dir = null;
        Path requestFile = null;
        try {
            dir = Files.createTempDirectory(paths.cacheDir(), "build-");
            Files.writeString(dir.resolve("flake.nix"), expressions.jobFlake());
            Files.writeString(dir.resolve("env.nix"), expressions.envNix());
            // Outside the flake's directory: Nix copies that whole directory into the world-readable
            // store, where every later job could read this request. The flake reads the file (under
            // --impure), which copies nothing.
            requestFile = Files.createTempFile(paths.cacheDir(), "request-", ".json",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            json.writeValue(requestFile.toFile(), request.toNixRequest(config.executor().system()));
            Map<String, String> requestEnv = Map.of(REQUEST_VARIABLE, requestFile.toString());
            if (fleet.copies()) {
                Optional<String> copied = copyFromFleet(dir, requestFile, requestEnv, pin, gcRoot);
                if (copied.isPresent()) {
                    return new Built(copied.get(), closure(copied.get()), (System.nanoTime() - started) / 1_000_000, true);
                }
            }
            List<String> argv = NixpkgsPins.append(nix.nix("build"), "--json", "--no-write-lock-file", "--impure",
                    "--out-link", gcRoot.toString(),
                    "--override-input", "nixpkgs", pin.lockedUrl(),
                    "path:" + dir + "#default");
            NixInvocation.Outcome outcome = NixInvocation.run(argv, requestEnv, dir, config.executor().buildTimeout());
            if (outcome.timedOut()) {
                throw new EnvironmentException("build_timeout", "building the environment took longer than "
                        + config.executor().buildTimeout().toSeconds() + "s");
            }
            if (outcome.exitCode() != 0) {
                throw failure(withoutHostPaths(outcome.stderrTail(), dir).replace(requestFile.toString(), "<request>"));
            }
            String storePath = outPath(outcome.stdout());
            List<String> closure = closure(storePath);
            fleet.publish(storePath);
            return new Built(storePath, closure, (System.nanoTime() - started) / 1_000_000, false);
        } catch (IOException e) {
            throw EnvironmentException.hostStorage("cannot run nix build", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EnvironmentException("build_failed", "interrupted while building the environment");
        } finally {
            NixInvocation.deleteTree(dir);
            NixInvocation.deleteTree(requestFile);
        }
    }

    /**
     * This node's evaluation names the store path (cheap: no build); when the fleet's cache has it
     * under a trusted signature it is copied and rooted at {@code gcRoot}. Empty: build it.
     */
    private Optional<String> copyFromFleet(Path dir, Path requestFile, Map<String, String> requestEnv, NixpkgsPin pin,
            Path gcRoot) throws EnvironmentException, IOException, InterruptedException {
        List<String> eval = NixpkgsPins.append(nix.nix("eval"), "--raw", "--no-write-lock-file", "--impure",
                "--override-input", "nixpkgs", pin.lockedUrl(), "path:" + dir + "#default.outPath");
        NixInvocation.Outcome evaluated = NixInvocation.run(eval, requestEnv, dir, config.executor().buildTimeout());
        if (evaluated.timedOut()) {
            throw new EnvironmentException("build_timeout", "evaluating the environment took longer than "
                    + config.executor().buildTimeout().toSeconds() + "s");
        }
        if (evaluated.exitCode() != 0) {
            throw failure(withoutHostPaths(evaluated.stderrTail(), dir).replace(requestFile.toString(), "<request>"));
        }
        String storePath = evaluated.stdout().strip();
        if (!fleet.copyIn(storePath)) {
            return Optional.empty();
        }
        NixInvocation.Outcome rooted = NixInvocation.run(nix.nixStore("--add-root", gcRoot.toString(), "--indirect",
                "--realise", storePath), dir, config.executor().buildTimeout());
        if (!rooted.succeeded()) {
            throw new EnvironmentException("build_failed", "cannot register the copied environment: "
                    + NixpkgsPins.lastLines(withoutHostPaths(rooted.stderrTail(), dir), 5));
        }
        return Optional.of(storePath);
    }

    private EnvironmentException failure(String stderr) {
        Matcher unknown = UNKNOWN_PACKAGE.matcher(stderr);
        if (unknown.find()) {
            return new EnvironmentException("unknown_package", "unknown package '" + unknown.group(1) + "'");
        }
        return new EnvironmentException("build_failed",
                "building the environment failed:\n" + NixpkgsPins.lastLines(stderr, LOG_TAIL_LINES));
    }

    /** Nix names the build directory and GC root in some errors: where they are is the node's business. */
    private String withoutHostPaths(String stderr, Path buildDir) {
        return stderr.replace(buildDir.toString(), "<build>").replace(paths.cacheDir().toString(), "<cache>");
    }

    private String outPath(String stdout) throws IOException {
        JsonNode result = json.readTree(stdout);
        String out = result.path(0).path("outputs").path("out").asText(null);
        if (out == null || !out.startsWith("/nix/store/")) {
            throw new IOException("nix build printed no output path");
        }
        return out;
    }

    private List<String> closure(String storePath) throws EnvironmentException, IOException, InterruptedException {
        NixInvocation.Outcome outcome = NixInvocation.run(nix.nixStore("--query", "--requisites", storePath),
                paths.cacheDir(), config.executor().buildTimeout());
        if (!outcome.succeeded()) {
            throw new EnvironmentException("build_failed", "nix-store --query failed: "
                    + NixpkgsPins.lastLines(outcome.stderrTail(), 5));
        }
        return Arrays.stream(outcome.stdout().split("\n")).map(String::strip).filter(s -> !s.isEmpty()).sorted().toList();
    }
}

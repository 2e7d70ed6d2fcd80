package dev.nixexec.nix;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A fleet for one test run: a copy of the offline fixture whose every package is this run's own
 * (the builders' PATH names a directory unique to the run, so each derivation, hence each store
 * path, is new: deleting them cannot take a path from another test sharing this host's store), an
 * empty shared cache directory, the fleet's signing key pair and a rogue key pair. The service
 * started with it publishes to the cache and trusts the fleet's key.
 */
public class FleetFixture implements QuarkusTestResourceLifecycleManager {

    public static final Path ROOT = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target", "fleet")
            .toAbsolutePath();

    /** The paths of the current run (set by {@link #create()}). */
    public record Fleet(Path dir, Path nixpkgs, Path cache, Path secretKey, String publicKey, Path rogueSecretKey,
            String roguePublicKey) {
    }

    /**
     * The test profile's {@code sandbox=false}, and builds as this user rather than Nix's shared
     * build users: a Nix with a store of its own elsewhere on this host (another test's) takes those
     * same uids and kills whatever runs under them first, which here was our builds.
     */
    static final List<String> NIX_OPTIONS = List.of("sandbox=false", "build-users-group=");

    private static volatile Fleet current;

    public static Fleet current() {
        return current;
    }

    @Override
    public Map<String, String> start() {
        Fleet fleet = create();
        current = fleet;
        return Map.of("nixexec.executor.nixpkgs-url", "path:" + fleet.nixpkgs(),
                "nixexec.environments.shared-cache", fleet.cache().toString(),
                "nixexec.environments.signing-key-file", fleet.secretKey().toString(),
                "nixexec.environments.trusted-public-keys", fleet.publicKey(),
                "nixexec.executor.nix-options", String.join(",", NIX_OPTIONS));
    }

    @Override
    public void stop() {
    }

    /** A new fleet under target/fleet/run-<uuid>. */
    public static Fleet create() {
        try {
            String run = UUID.randomUUID().toString().replace("-", "");
            Path dir = Files.createDirectories(ROOT.resolve("run-" + run));
            Path nixpkgs = dir.resolve("nixpkgs");
            Path source = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "nix", "testing", "nixpkgs")
                    .toAbsolutePath();
            copyTree(source, nixpkgs);
            Path pkgs = nixpkgs.resolve("pkgs.nix");
            String text = Files.readString(pkgs);
            String original = "hostPath = \"/usr/bin:/bin\";";
            if (!text.contains(original)) {
                throw new IllegalStateException("the fixture's hostPath line changed; FleetFixture must follow it");
            }
            Files.writeString(pkgs, text.replace(original, "hostPath = \"/usr/bin:/bin:/nonexistent/fleet-" + run + "\";"));
            Path cache = Files.createDirectories(dir.resolve("cache"));
            Path secret = dir.resolve("fleet.sec");
            Path rogueSecret = dir.resolve("rogue.sec");
            String publicKey = generateKey("fleet-test-" + run.substring(0, 8), secret, dir.resolve("fleet.pub"));
            String roguePublicKey = generateKey("rogue-" + run.substring(0, 8), rogueSecret, dir.resolve("rogue.pub"));
            return new Fleet(dir, nixpkgs, cache, secret, publicKey, rogueSecret, roguePublicKey);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String generateKey(String name, Path secret, Path pub) throws IOException {
        run(List.of("nix-store", "--generate-binary-cache-key", name, secret.toString(), pub.toString()));
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        return Files.readString(pub).strip();
    }

    static String run(List<String> argv) throws IOException {
        Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException(String.join(" ", argv) + " failed: " + output);
            }
            return output;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}

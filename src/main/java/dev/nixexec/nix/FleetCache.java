package dev.nixexec.nix;

import dev.nixexec.config.NixExecConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The fleet's binary cache: a directory on shared storage that Nix uses as a {@code file://}
 * store. A worker with the signing key publishes every environment it builds (its closure, each
 * path signed); a worker with the trusted public keys copies an environment it lacks from there
 * before building it, and Nix accepts a path only with a valid signature of one of those keys and
 * the NAR hash the signed narinfo names. The store path to copy is what this worker's own
 * evaluation gives, never what the cache says, so nothing in the cache can swap one environment
 * for another.
 */
@ApplicationScoped
@Startup // a signing key others can read stops the start, not the first build
public class FleetCache {

    private static final Logger LOG = Logger.getLogger(FleetCache.class);
    /** The cache directory and key file go into a store URL: no character that URL syntax gives a meaning. */
    private static final Pattern PLAIN_PATH = Pattern.compile("/[A-Za-z0-9._/+-]*");
    private static final Pattern PUBLIC_KEY = Pattern.compile("[A-Za-z0-9._-]+:[A-Za-z0-9+/]+={0,2}");
    private static final Pattern STORE_PATH = Pattern.compile("/nix/store/([a-z0-9]{32})-[A-Za-z0-9+._?=-]+");

    private final NixCommand nix;
    private final Duration timeout;
    private final Optional<Path> directory;
    private final Optional<Path> signingKey;
    private final List<String> trustedKeys;
    /** One upload at a time: publishing runs behind the job that built, never in its way. */
    private final ExecutorService uploads = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("fleet-publish").factory());

    public FleetCache(NixExecConfig config, NixCommand nix) {
        this.nix = nix;
        this.timeout = config.executor().buildTimeout();
        NixExecConfig.Environments settings = config.environments();
        this.directory = settings.sharedCache().map(p -> plainPath(p, "shared-cache"));
        this.signingKey = settings.signingKeyFile().map(p -> plainPath(p, "signing-key-file"));
        this.trustedKeys = settings.trustedPublicKeys().orElse(List.of()).stream().map(String::strip)
                .filter(k -> !k.isEmpty()).toList();
        trustedKeys.stream().filter(k -> !PUBLIC_KEY.matcher(k).matches()).findFirst().ifPresent(k -> {
            throw new IllegalArgumentException("nixexec.environments.trusted-public-keys: '" + k
                    + "' is not a Nix public key (name:base64)");
        });
        if (directory.isPresent() && signingKey.isPresent()) {
            requireOwnerOnly(signingKey.get());
        }
    }

    /** Whether this worker copies environments it lacks from the fleet's cache. */
    public boolean copies() {
        return directory.isPresent() && !trustedKeys.isEmpty();
    }

    /** Whether this worker publishes the environments it builds. */
    public boolean publishes() {
        return directory.isPresent() && signingKey.isPresent();
    }

    /**
     * Copies {@code storePath} and its closure from the cache into this node's store; false when the
     * cache does not have it or Nix refused it (no trusted signature, a hash that does not match).
     */
    boolean copyIn(String storePath) throws IOException, InterruptedException, EnvironmentException {
        if (!copies()) {
            return false;
        }
        var name = STORE_PATH.matcher(storePath);
        if (!name.matches() || !Files.exists(directory.get().resolve(name.group(1) + ".narinfo"))) {
            return false;
        }
        // only the fleet's keys count for this copy, whatever else the host trusts
        List<String> argv = NixpkgsPins.append(nix.nix("copy"), "--from", "file://" + directory.get(),
                "--option", "trusted-public-keys", String.join(" ", trustedKeys), storePath);
        NixInvocation.Outcome outcome = NixInvocation.run(argv, Path.of("/"), timeout);
        if (!outcome.succeeded()) {
            LOG.warnf("copying %s from the fleet cache failed, building it instead: %s", storePath,
                    outcome.timedOut() ? "timed out" : NixpkgsPins.lastLines(outcome.stderrTail(), 3));
            return false;
        }
        return true;
    }

    /** Signs {@code storePath}'s closure and copies it to the cache, in the background. */
    CompletableFuture<Boolean> publish(String storePath) {
        if (!publishes()) {
            return CompletableFuture.completedFuture(false);
        }
        return CompletableFuture.supplyAsync(() -> upload(storePath), uploads);
    }

    private boolean upload(String storePath) {
        try {
            Files.createDirectories(directory.get());
            List<String> argv = NixpkgsPins.append(nix.nix("copy"), "--to",
                    "file://" + directory.get() + "?secret-key=" + signingKey.get() + "&compression=zstd", storePath);
            NixInvocation.Outcome outcome = NixInvocation.run(argv, Path.of("/"), timeout);
            if (!outcome.succeeded()) {
                LOG.warnf("publishing %s to the fleet cache failed: %s", storePath,
                        outcome.timedOut() ? "timed out" : NixpkgsPins.lastLines(outcome.stderrTail(), 3));
                return false;
            }
            LOG.infof("published %s to the fleet cache", storePath);
            return true;
        } catch (IOException | EnvironmentException e) {
            LOG.warnf("publishing %s to the fleet cache failed: %s", storePath, e.getMessage());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void stop(@Observes ShutdownEvent event) {
        uploads.shutdownNow();
    }

    private static Path plainPath(Path path, String setting) {
        String text = path.toString();
        if (!PLAIN_PATH.matcher(text).matches() || text.contains("//") || text.contains("/../")) {
            throw new IllegalArgumentException("nixexec.environments." + setting
                    + " must be an absolute path of the characters A-Z a-z 0-9 . _ / + -, not " + text);
        }
        return path;
    }

    /** The secret key signs for the whole fleet: a key others on the host can read is refused. */
    private static void requireOwnerOnly(Path key) {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(key);
        } catch (IOException e) {
            throw new IllegalStateException("nixexec.environments.signing-key-file " + key + " cannot be read: "
                    + e.getMessage(), e);
        }
        if (permissions.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
            throw new IllegalStateException("nixexec.environments.signing-key-file " + key
                    + " is readable by others (" + java.nio.file.attribute.PosixFilePermissions.toString(permissions)
                    + "); make it 0600");
        }
    }
}

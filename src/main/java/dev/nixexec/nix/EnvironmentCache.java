package dev.nixexec.nix;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletionException;
import org.jboss.logging.Logger;

/**
 * Environments by cache key. A hit is a map lookup plus a check that the store path still exists:
 * no nix process. Misses for the same key share one build. Each environment has a GC root and a
 * metadata file under the cache directory, so hits survive restarts.
 */
@ApplicationScoped
public class EnvironmentCache {

    private static final Logger LOG = Logger.getLogger(EnvironmentCache.class);

    private final NixExecConfig config;
    private final NixpkgsPins pins;
    private final NixExpressions expressions;
    private final NixBuilder builder;
    private final StatePaths paths;
    private final ObjectMapper json;
    private final Map<String, Environment> known = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Environment>> building = new ConcurrentHashMap<>();

    EnvironmentCache(NixExecConfig config, NixpkgsPins pins, NixExpressions expressions, NixBuilder builder,
            StatePaths paths, ObjectMapper json) {
        this.config = config;
        this.pins = pins;
        this.expressions = expressions;
        this.builder = builder;
        this.paths = paths;
        this.json = json;
    }

    /** The environment for the request, from the cache or built now. */
    public Environment get(EnvironmentRequest request) throws EnvironmentException {
        return get(request, () -> true);
    }

    /**
     * As {@link #get(EnvironmentRequest)}, asking {@code mayBuild} (which may wait) before a build
     * this call would start; when it says no, nothing is built and this throws {@code not_built}.
     * Asked at the point of building, after the lookup under the current pin, so a pin refreshed or
     * a path collected since an earlier look cannot start a build unasked.
     */
    public Environment get(EnvironmentRequest request, BooleanSupplier mayBuild) throws EnvironmentException {
        NixpkgsPin pin = pins.current();
        String key = request.cacheKey(config.executor().system(), pin, expressions.hash());
        Optional<Environment> hit = lookup(key);
        if (hit.isPresent()) {
            return hit.get();
        }
        if (!building.containsKey(key) && !mayBuild.getAsBoolean()) {
            throw new EnvironmentException("not_built", "the environment was not built: its build was not allowed");
        }
        CompletableFuture<Environment> mine = new CompletableFuture<>();
        CompletableFuture<Environment> shared = building.putIfAbsent(key, mine);
        if (shared != null) {
            return await(shared);
        }
        try {
            Environment built = buildAndRecord(key, request, pin);
            mine.complete(built);
            return built;
        } catch (EnvironmentException | RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            building.remove(key, mine);
        }
    }

    /** A cached environment for the key, if its store path is still there. */
    public Optional<Environment> lookup(String key) {
        Environment environment = known.get(key);
        if (environment == null) {
            environment = readMetadata(key).orElse(null);
        }
        if (environment == null || !Files.isDirectory(Path.of(environment.storePath()))) {
            known.remove(key);
            return Optional.empty();
        }
        known.putIfAbsent(key, environment);
        return Optional.of(environment.asHit());
    }

    /** The key the request has under the current pin. */
    public String keyOf(EnvironmentRequest request) throws EnvironmentException {
        return request.cacheKey(config.executor().system(), pins.current(), expressions.hash());
    }

    private Environment buildAndRecord(String key, EnvironmentRequest request, NixpkgsPin pin)
            throws EnvironmentException {
        Optional<Environment> raced = lookup(key);
        if (raced.isPresent()) {
            return raced.get();
        }
        LOG.infof("building environment %s: %s %s", key, request.language().id(), request.packageNames());
        Path gcRoot = directory("gcroots").resolve(key);
        NixBuilder.Built built = builder.build(request, pin, gcRoot);
        if (built.copied()) {
            LOG.infof("environment %s copied from the fleet cache in %d ms", key, built.buildMs());
        }
        Environment environment = new Environment(key, built.storePath(), built.closure(), pin.revision(), false,
                built.buildMs());
        try {
            writeMetadata(environment);
        } catch (EnvironmentException e) {
            // no GC root without its metadata: nothing of a build that failed stays behind
            deleteQuietly(gcRoot);
            throw e;
        }
        known.put(key, environment);
        return environment;
    }

    private static Environment await(CompletableFuture<Environment> future) throws EnvironmentException {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof EnvironmentException environmentException) {
                throw environmentException;
            }
            throw e;
        }
    }

    private Optional<Environment> readMetadata(String key) {
        Path file = paths.cacheDir().resolve("envs").resolve(key + ".json");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(json.readValue(file.toFile(), Environment.class));
        } catch (IOException e) {
            LOG.warnf("ignoring unreadable environment metadata %s: %s", file, e.getMessage());
            return Optional.empty();
        }
    }

    private void writeMetadata(Environment environment) throws EnvironmentException {
        Path dir = directory("envs");
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, environment.cacheKey(), ".tmp");
            json.writeValue(tmp.toFile(), environment);
            Files.move(tmp, dir.resolve(environment.cacheKey() + ".json"), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw EnvironmentException.hostStorage("cannot record the environment in the node's cache", e);
        }
    }

    private Path directory(String name) throws EnvironmentException {
        Path dir = paths.cacheDir().resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw EnvironmentException.hostStorage("the node's environment cache cannot be written", e);
        }
        return dir;
    }

    private static void deleteQuietly(Path file) {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warnf("cannot delete %s: %s", file, e.getMessage());
        }
    }
}

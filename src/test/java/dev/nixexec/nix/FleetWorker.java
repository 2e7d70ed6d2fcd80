package dev.nixexec.nix;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Another worker of the fleet in the test's JVM: its own cache directory (so its own GC roots and
 * environment metadata), its own Nix options and fleet settings, over the host's store.
 */
record FleetWorker(EnvironmentCache cache, FleetCache fleet, StatePaths paths) {

    static FleetWorker of(NixExecConfig base, ObjectMapper json, Path stateDir, FleetFixture.Fleet fleet,
            Optional<Path> signingKey, List<String> trustedKeys, List<String> extraNixOptions) {
        List<String> options = new ArrayList<>(FleetFixture.NIX_OPTIONS);
        options.addAll(extraNixOptions);
        NixExecConfig.Executor executor = ConfigOverride.of(NixExecConfig.Executor.class, base.executor(), Map.of(
                "nixpkgsUrl", "path:" + fleet.nixpkgs(),
                "cacheDir", Optional.of(stateDir.resolve("cache")),
                "nixOptions", Optional.of(options)));
        NixExecConfig.Environments environments = ConfigOverride.of(NixExecConfig.Environments.class,
                base.environments(), Map.of(
                        "sharedCache", Optional.of(fleet.cache()),
                        "signingKeyFile", signingKey,
                        "trustedPublicKeys", trustedKeys.isEmpty() ? Optional.empty() : Optional.of(trustedKeys)));
        NixExecConfig config = ConfigOverride.of(NixExecConfig.class, base, Map.of(
                "stateDir", Optional.of(stateDir), "executor", executor, "environments", environments));
        NixCommand nix = new NixCommand(config);
        StatePaths paths = new StatePaths(config);
        NixExpressions expressions = new NixExpressions();
        FleetCache fleetCache = new FleetCache(config, nix);
        NixBuilder builder = new NixBuilder(config, nix, expressions, paths, json, fleetCache);
        NixpkgsPins pins = new NixpkgsPins(config, nix, paths, json);
        return new FleetWorker(new EnvironmentCache(config, pins, expressions, builder, paths, json), fleetCache, paths);
    }
}

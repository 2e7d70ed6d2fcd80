package dev.nixexec.execution;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a caller asks to run, as received: {@link ExecutionEngine#validate} checks it. An empty
 * timeout means the configured default, as do the fields {@code limits} leaves out; {@code args}
 * follow the code file in the program's argv.
 */
public record ExecutionRequest(String language, String code, List<String> packages, Map<String, String> env,
        String stdin, Optional<Duration> timeout, boolean network, RequestedLimits limits, List<String> args) {

    public ExecutionRequest {
        // Not List.copyOf: a null element is the caller's mistake, refused with a field error.
        args = args == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(args));
        packages = packages == null ? List.of() : List.copyOf(packages);
        env = env == null ? Map.of() : Map.copyOf(env);
        stdin = stdin == null ? "" : stdin;
        timeout = timeout == null ? Optional.empty() : timeout;
        limits = limits == null ? RequestedLimits.NONE : limits;
    }

    /** A request under the service's default limits, with no arguments. */
    public ExecutionRequest(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network) {
        this(language, code, packages, env, stdin, timeout, network, RequestedLimits.NONE, List.of());
    }

    public static ExecutionRequest of(String language, String code) {
        return new ExecutionRequest(language, code, List.of(), Map.of(), "", Optional.empty(), false);
    }

    public ExecutionRequest withLanguage(String name) {
        return new ExecutionRequest(name, code, packages, env, stdin, timeout, network, limits, args);
    }

    public ExecutionRequest withPackages(String... names) {
        return new ExecutionRequest(language, code, List.of(names), env, stdin, timeout, network, limits, args);
    }

    public ExecutionRequest withEnv(Map<String, String> variables) {
        return new ExecutionRequest(language, code, packages, variables, stdin, timeout, network, limits, args);
    }

    public ExecutionRequest withTimeout(Duration limit) {
        return new ExecutionRequest(language, code, packages, env, stdin, Optional.of(limit), network, limits, args);
    }

    public ExecutionRequest withLimits(RequestedLimits requested) {
        return new ExecutionRequest(language, code, packages, env, stdin, timeout, network, requested, args);
    }

    public ExecutionRequest withNetwork(boolean full) {
        return new ExecutionRequest(language, code, packages, env, stdin, timeout, full, limits, args);
    }
}

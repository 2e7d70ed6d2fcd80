package dev.nixexec.execution;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;

import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Map;
import dev.nixexec.config.HostMount;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentException;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.PersistentPaths;
import dev.nixexec.sandbox.RunCalledOff;
import dev.nixexec.sandbox.Sandbox;
import dev.nixexec.sandbox.SandboxEnv;
import dev.nixexec.sandbox.SandboxEvent;
import dev.nixexec.sandbox.SandboxResult;
import dev.nixexec.sandbox.SandboxSpec;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The one entry point for running code: validates the request, gets its environment (cache or
 * build), runs it in the sandbox and reports phases, output and one final result.
 */
@ApplicationScoped
public class ExecutionEngine {

    private static final Logger LOG = Logger.getLogger(ExecutionEngine.class);

    /** A request that passed validation: the only kind the engine runs. */
    public record ValidatedRequest(Language language, EnvironmentRequest environment, byte[] code,
            Map<String, String> env, byte[] stdin, Limits limits, boolean network, Optional<Path> hostWorkspace,
            Optional<Path> materialisedWorkspace, Optional<PersistentPaths> persistent, List<String> args,
            List<HostMount> hostMounts) {

        /** The same request under other limits (a tenant's policy narrows the defaults). */
        public ValidatedRequest withLimits(Limits newLimits) {
            return new ValidatedRequest(language, environment, code, env, stdin, newLimits, network, hostWorkspace,
                    materialisedWorkspace, persistent, args, hostMounts);
        }

        /** The same request with a host directory at /workspace, as checked by {@link HostWorkspaces}. */
        public ValidatedRequest withHostWorkspace(Path checked) {
            return new ValidatedRequest(language, environment, code, env, stdin, limits, network, Optional.of(checked),
                    Optional.empty(), Optional.empty(), args, hostMounts);
        }

        /** The same request with a workspace the worker materialised (private to the service) at /workspace. */
        public ValidatedRequest withMaterialisedWorkspace(Path dir) {
            return new ValidatedRequest(language, environment, code, env, stdin, limits, network, Optional.empty(),
                    Optional.of(dir), Optional.empty(), args, hostMounts);
        }

        /**
         * The same request in a session's paths, materialised by the worker (private to the service);
         * a host directory given before stays the session's /workspace.
         */
        public ValidatedRequest withPersistentPaths(PersistentPaths paths) {
            return new ValidatedRequest(language, environment, code, env, stdin, limits, network, hostWorkspace,
                    Optional.empty(), Optional.of(paths), args, hostMounts);
        }

        /** The same request with host paths at their own paths, as checked by {@link HostWorkspaces}. */
        public ValidatedRequest withHostMounts(List<HostMount> mounts) {
            return new ValidatedRequest(language, environment, code, env, stdin, limits, network, hostWorkspace,
                    materialisedWorkspace, persistent, args, mounts);
        }

        /** The sandbox's run of this request in {@code built}, its environment. */
        public SandboxSpec in(Environment built) {
            return new SandboxSpec(built.storePath(), built.closure(), language.fileName(), code, language.command(),
                    env, stdin, limits, network, hostWorkspace, materialisedWorkspace, persistent, args, hostMounts);
        }
    }

    /** The most arguments a request may pass to its program, the longest one, and all together (UTF-8 bytes). */
    public static final int MAX_ARGS = 100;
    public static final int MAX_ARG_BYTES = 4096;
    public static final int MAX_ARGS_BYTES = 64 * 1024;

    private final NixExecConfig config;
    private final EnvironmentCache environments;
    private final Sandbox sandbox;
    private final PackagePolicy packagePolicy;

    public ExecutionEngine(NixExecConfig config, EnvironmentCache environments, Sandbox sandbox) {
        this.config = config;
        this.environments = environments;
        this.sandbox = sandbox;
        this.packagePolicy = new PackagePolicy(config.sandbox().packageDenylist().orElse(List.of()),
                config.sandbox().packageAllowlist());
    }

    /** Checks everything that can be checked without building; throws with every problem found. */
    public ValidatedRequest validate(ExecutionRequest request) {
        NixExecConfig.Sandbox limits = config.sandbox();
        List<FieldError> errors = new ArrayList<>();
        List<FieldError> tooLarge = new ArrayList<>();
        Optional<Language> language = Language.byId(request.language());
        if (language.isEmpty()) {
            errors.add(new FieldError("language", request.language() == null || request.language().isBlank()
                    ? "language is required; one of " + String.join(", ", Language.ids())
                    : "unknown language '" + request.language() + "'; one of " + String.join(", ", Language.ids())));
        }
        byte[] code = request.code() == null ? new byte[0] : request.code().getBytes(StandardCharsets.UTF_8);
        if (request.code() == null || request.code().isBlank()) {
            errors.add(new FieldError("code", "code is empty"));
        } else if (code.length > limits.maxCodeBytes()) {
            tooLarge.add(new FieldError("code", "code is larger than " + limits.maxCodeBytes() + " bytes"));
        } else if (request.code().indexOf('\0') >= 0) {
            // PostgreSQL text cannot hold NUL, and no interpreter here wants one in its source
            errors.add(new FieldError("code", "code contains a NUL character (U+0000)"));
        }
        List<PackageName> packages = new ArrayList<>();
        for (int i = 0; i < request.packages().size(); i++) {
            String raw = request.packages().get(i);
            try {
                PackageName name = PackageName.parse(raw);
                Optional<String> rejection = packagePolicy.rejection(name);
                if (rejection.isPresent()) {
                    errors.add(new FieldError("packages[" + i + "]", rejection.get()));
                } else {
                    packages.add(name);
                }
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("packages[" + i + "]", "'" + raw + "': " + e.getMessage()));
            }
        }
        if (request.packages().size() > 64) {
            errors.add(new FieldError("packages", "at most 64 packages"));
        }
        SandboxEnv.problems(request.env(), limits.maxEnvBytes()).forEach(p -> errors.add(new FieldError("env", p)));
        byte[] stdin = request.stdin().getBytes(StandardCharsets.UTF_8);
        if (stdin.length > limits.maxStdinBytes()) {
            tooLarge.add(new FieldError("stdin", "stdin is larger than " + limits.maxStdinBytes() + " bytes"));
        } else if (request.stdin().indexOf('\0') >= 0) {
            errors.add(new FieldError("stdin", "stdin contains a NUL character (U+0000), which cannot be stored"));
        }
        errors.addAll(argsProblems(request.args()));
        Duration timeout = request.timeout().orElse(limits.timeout());
        if (timeout.isNegative() || timeout.isZero()) {
            errors.add(new FieldError("timeout", "timeout must be positive"));
        } else if (timeout.compareTo(limits.maxTimeout()) > 0) {
            errors.add(new FieldError("timeout", "timeout may be at most " + limits.maxTimeout().toSeconds() + "s"));
        }
        errors.addAll(limitProblems(request.limits(), limits));
        if (!errors.isEmpty() || !tooLarge.isEmpty()) {
            List<FieldError> all = new ArrayList<>(errors);
            all.addAll(tooLarge);
            throw new InvalidRequestException(all, errors.isEmpty());
        }
        Limits runLimits = request.limits().over(new Limits(timeout, limits.memoryBytes(), limits.maxProcesses(),
                limits.cpuSeconds(), limits.maxFileBytes(), limits.tmpBytes(), limits.workspaceBytes(),
                limits.maxOutputBytes()));
        return new ValidatedRequest(language.get(), EnvironmentRequest.of(language.get(), packages, request.network()), code,
                request.env(), stdin, runLimits, request.network(), Optional.empty(), Optional.empty(), Optional.empty(),
                request.args(), List.of());
    }

    /** What is wrong with the arguments: each is text of bounded size without NUL (no argv holds one) or line feed. */
    static List<FieldError> argsProblems(List<String> args) {
        List<FieldError> errors = new ArrayList<>();
        if (args.size() > MAX_ARGS) {
            errors.add(new FieldError("args", "at most " + MAX_ARGS + " arguments"));
            return errors;
        }
        long total = 0;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg == null) {
                errors.add(new FieldError("args[" + i + "]", "an argument is a string"));
                continue;
            }
            int bytes = arg.getBytes(StandardCharsets.UTF_8).length;
            total += bytes;
            if (bytes > MAX_ARG_BYTES) {
                errors.add(new FieldError("args[" + i + "]", "an argument is at most " + MAX_ARG_BYTES + " bytes"));
            } else if (arg.indexOf('\0') >= 0) {
                errors.add(new FieldError("args[" + i + "]", "contains a NUL character (U+0000), which no argv can hold"));
            } else if (arg.indexOf('\n') >= 0) {
                // the sandbox's launcher reads the program's argv one word a line (LauncherPool)
                errors.add(new FieldError("args[" + i + "]", "contains a line feed, which an argument may not"));
            }
        }
        if (total > MAX_ARGS_BYTES) {
            errors.add(new FieldError("args", "the arguments are " + total + " bytes together, at most " + MAX_ARGS_BYTES));
        }
        return errors;
    }

    /**
     * The largest CPU seconds a request may ask for: {@code cpu-seconds} when set, else the longest
     * timeout (0 there means "as long as the wall timeout", which no run exceeds).
     */
    public static long maxCpuSeconds(NixExecConfig.Sandbox limits) {
        return limits.cpuSeconds() > 0 ? limits.cpuSeconds() : Math.max(1, limits.maxTimeout().toSeconds());
    }

    /**
     * Requested limits beyond the service's own (memory, processes, output: the configured values;
     * CPU: {@link #maxCpuSeconds}) or below a run's minimum, under {@code limits.<field>}. A request
     * may only narrow the service's limits; a tenant's caps may narrow them further (intake checks those).
     */
    private static List<FieldError> limitProblems(RequestedLimits requested, NixExecConfig.Sandbox limits) {
        List<FieldError> problems = new ArrayList<>();
        if (requested.memory() != null) {
            if (requested.memory() < RequestedLimits.MIN_MEMORY_BYTES) {
                problems.add(new FieldError("limits.memory", "must be at least "
                        + ByteSize.describe(RequestedLimits.MIN_MEMORY_BYTES) + "; a number is bytes, or write \"64MiB\""));
            } else if (requested.memory() > limits.memoryBytes()) {
                problems.add(new FieldError("limits.memory", "may be at most " + ByteSize.describe(limits.memoryBytes())));
            }
        }
        if (requested.pids() != null && (requested.pids() < 1 || requested.pids() > limits.maxProcesses())) {
            problems.add(new FieldError("limits.pids", "must be 1 to " + limits.maxProcesses()));
        }
        if (requested.cpuSeconds() != null && (requested.cpuSeconds() < 1 || requested.cpuSeconds() > maxCpuSeconds(limits))) {
            problems.add(new FieldError("limits.cpu_seconds", "must be 1 to " + maxCpuSeconds(limits)));
        }
        if (requested.outputBytes() != null && (requested.outputBytes() < 1 || requested.outputBytes() > limits.maxOutputBytes())) {
            problems.add(new FieldError("limits.output_bytes", "must be 1 to " + ByteSize.describe(limits.maxOutputBytes())));
        }
        return problems;
    }

    /**
     * A stream that runs the request when subscribed; cancelling the subscription kills the
     * sandbox. {@code mayBuild} is asked (it may wait) before an environment not cached is built;
     * when it says no, nothing is built or run and the result is the error {@code not_built}: a
     * refused submission must not cost a build. {@code beforeRun} is called once the environment is
     * there and the sandbox is set up, before any user code starts; when it returns false, nothing
     * runs and the result is the error {@code not_started}: the job queue records "started" first,
     * so a lost worker never leads to a second run.
     */
    public Multi<ExecutionEvent> execute(ValidatedRequest request, BooleanSupplier mayBuild,
            Predicate<ExecutionResult.EnvironmentInfo> beforeRun) {
        return Multi.createFrom().emitter(emitter -> {
            AtomicReference<Cancellable> sandboxRun = new AtomicReference<>();
            emitter.onTermination(() -> {
                Cancellable run = sandboxRun.get();
                if (run != null) {
                    run.cancel();
                }
            });
            Thread.ofVirtual().name("execution").start(() -> {
                Environment environment;
                try {
                    environment = environments.get(request.environment(), mayBuild);
                } catch (EnvironmentException e) {
                    emitter.emit(new ExecutionEvent.Finished(ExecutionResult.error(e.code(), e.getMessage(), Optional.empty())));
                    emitter.complete();
                    return;
                } catch (RuntimeException e) {
                    LOG.error("environment lookup failed", e);
                    emitter.emit(new ExecutionEvent.Finished(ExecutionResult.error("build_failed", e.getMessage(), Optional.empty())));
                    emitter.complete();
                    return;
                }
                if (emitter.isCancelled()) {
                    return;
                }
                ExecutionResult.EnvironmentInfo info = new ExecutionResult.EnvironmentInfo(environment.storePath(),
                        environment.nixpkgsRevision(), environment.cacheHit(), environment.buildMs());
                SandboxSpec spec = request.in(environment);
                sandboxRun.set(sandbox.run(spec, () -> beforeRun.test(info)).subscribe().with(
                        event -> {
                            switch (event) {
                                case SandboxEvent.Started started -> { }
                                case SandboxEvent.Output output ->
                                        emitter.emit(new ExecutionEvent.Output(output.stream(), output.data()));
                                case SandboxEvent.Exited exited -> {
                                    emitter.emit(new ExecutionEvent.Finished(finished(exited.result(), info)));
                                    emitter.complete();
                                }
                            }
                        },
                        failure -> {
                            if (failure instanceof RunCalledOff) {
                                emitter.emit(new ExecutionEvent.Finished(ExecutionResult.error("not_started",
                                        failure.getMessage(), Optional.of(info))));
                                emitter.complete();
                                return;
                            }
                            LOG.warn("sandbox failed", failure);
                            emitter.emit(new ExecutionEvent.Finished(ExecutionResult.error("sandbox_failed",
                                    failure.getMessage(), Optional.of(info))));
                            emitter.complete();
                        }));
            });
        });
    }

    private static ExecutionResult finished(SandboxResult r, ExecutionResult.EnvironmentInfo info) {
        String status = r.timedOut() ? "timed_out" : r.exitCode() == 0 ? "succeeded" : "failed";
        return new ExecutionResult(status, Optional.of(r.exitCode()), r.signal(), r.timedOut(), r.limitHit(),
                r.durationMs(), r.stdout(), r.stderr(), Optional.of(info), Optional.empty(), r.usage());
    }
}

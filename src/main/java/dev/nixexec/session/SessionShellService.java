package dev.nixexec.session;

import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentException;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.PersistentPaths;
import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.workspace.StoreBack;
import dev.nixexec.workspace.WorkspaceRun;
import dev.nixexec.workspace.WorkspaceRuns;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * {@link SessionShells} for the attach endpoint: the caller's ready session, its environment on
 * this node (from the cache, or built on the nixpkgs it was built on), its files materialised as
 * for an exec, and the sandbox of an interactive bash with the session's env, network, writable
 * paths and the service's limits within the tenant's policy of now, as an exec gets them (a shell
 * lasts at most {@code nixexec.attach.max-duration} and the policy's longest timeout); closing
 * stores the files back.
 */
@ApplicationScoped
public class SessionShellService implements SessionShells {

    private static final Logger LOG = Logger.getLogger(SessionShellService.class);
    /** The shell's code file: bash replaces itself with an interactive bash. */
    private static final String SHELL = "exec bash -i\n";

    private final NixExecConfig config;
    private final SessionService sessions;
    private final SessionRepository repository;
    private final SessionRuns runs;
    private final ExecutionEngine engine;
    private final EnvironmentCache environments;
    private final WorkspaceRuns workspaces;
    private final Tenants tenants;
    private final HostWorkspaces hostWorkspaces;

    SessionShellService(NixExecConfig config, SessionService sessions, SessionRepository repository, SessionRuns runs,
            ExecutionEngine engine, EnvironmentCache environments, WorkspaceRuns workspaces, Tenants tenants,
            HostWorkspaces hostWorkspaces) {
        this.tenants = tenants;
        this.hostWorkspaces = hostWorkspaces;
        this.config = config;
        this.sessions = sessions;
        this.repository = repository;
        this.runs = runs;
        this.engine = engine;
        this.environments = environments;
        this.workspaces = workspaces;
    }

    @Override
    public Optional<SessionShell> open(Caller caller, String idOrName) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot open a shell in a session");
        }
        SessionRepository.Row session;
        try {
            session = sessions.settled(caller, sessions.find(caller, idOrName));
        } catch (Refusal e) {
            if (e.kind() == Refusal.Kind.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
        if (session.status() != SessionStatus.READY) {
            throw new InvalidRequestException(List.of(new FieldError("session", "session " + idOrName + " is "
                    + session.status().id() + (session.error() == null ? "" : " (" + session.error() + ")")
                    + "; a shell opens in a ready session only")), false);
        }
        TenantPolicy policy = tenants.policy(session.tenantId());
        Optional<String> disallowed = disallowed(session, policy);
        if (disallowed.isPresent()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "the tenant's policy does not allow a shell in session "
                    + idOrName + ": " + disallowed.get());
        }
        ExecutionEngine.ValidatedRequest request = engine.validate(new ExecutionRequest("bash", SHELL,
                session.packages(), session.env(), "", Optional.of(config.sandbox().maxTimeout()), session.network()));
        Duration duration = Optional.ofNullable(policy.maxTimeoutSeconds()).map(Duration::ofSeconds)
                .filter(longest -> longest.compareTo(config.attach().maxDuration()) < 0)
                .orElse(config.attach().maxDuration());
        request = request.withLimits(policy.narrow(request.limits().withTimeout(duration)));
        Environment environment;
        try {
            environment = environments.get(request.environment());
        } catch (EnvironmentException e) {
            throw new Refusal(Refusal.Kind.UNAVAILABLE, "the session's environment cannot be had on this node: "
                    + e.getMessage());
        }
        if (!environment.nixpkgsRevision().equals(session.nixpkgsRevision())) {
            throw new Refusal(Refusal.Kind.CONFLICT, "the session was built on nixpkgs " + session.nixpkgsRevision()
                    + ", this node pins " + environment.nixpkgsRevision() + "; create a new session");
        }
        Optional<java.nio.file.Path> host = Optional.ofNullable(session.hostWorkspace()).map(java.nio.file.Path::of);
        if (host.isPresent() && host.flatMap(hostWorkspaces::permit).isEmpty()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "the session's host directory " + host.get()
                    + " may not be mounted on this node (local mode, allowed prefixes only)");
        }
        WorkspaceRun files = workspaces.prepareUnclaimed(session.tenantId(), session.workspaceId(), request.limits());
        try {
            PersistentPaths paths = runs.paths(files.dir(), new SessionRuns.Context(session.id(),
                    Set.copyOf(session.writable()), Optional.of(session.nixpkgsRevision())));
            SandboxSpec spec = host.map(request::withHostWorkspace).orElse(request).withPersistentPaths(paths)
                    .in(environment);
            QuarkusTransaction.requiringNew().run(() -> repository.touch(session.id()));
            return Optional.of(new Shell(session, spec, files));
        } catch (IOException | RuntimeException e) {
            files.finish(false);
            throw e instanceof IOException io ? new IllegalStateException("cannot lay out the session's files", io)
                    : (RuntimeException) e;
        }
    }

    /** What of the session's shell the policy does not allow: what an exec in the session would be refused for. */
    private static Optional<String> disallowed(SessionRepository.Row session, TenantPolicy policy) {
        if (session.network() && !policy.networkAllowed()) {
            return Optional.of("network is not allowed");
        }
        if (policy.languages() != null && !policy.languages().contains("bash")) {
            return Optional.of("language bash is not allowed");
        }
        PackagePolicy packages = new PackagePolicy(Optional.ofNullable(policy.packageDenylist()).orElse(List.of()),
                Optional.ofNullable(policy.packageAllowlist()));
        return session.packages().stream().flatMap(name -> packages.rejection(PackageName.parse(name)).stream())
                .findFirst();
    }

    /** A cap of the policy below the shell's limit, as {@code field is now N}. */
    private static Optional<String> capBelow(Limits limits, TenantPolicy policy) {
        if (policy.maxPids() != null && policy.maxPids() < limits.maxProcesses()) {
            return Optional.of("max_pids is now " + policy.maxPids());
        }
        if (policy.maxCpuSeconds() != null && policy.maxCpuSeconds() < limits.effectiveCpuSeconds()) {
            return Optional.of("max_cpu_seconds is now " + policy.maxCpuSeconds());
        }
        if (policy.maxMemoryBytes() != null && policy.maxMemoryBytes() < limits.memoryBytes()) {
            return Optional.of("max_memory_bytes is now " + policy.maxMemoryBytes());
        }
        if (policy.maxTimeoutSeconds() != null && Duration.ofSeconds(policy.maxTimeoutSeconds()).compareTo(limits.timeout()) < 0) {
            return Optional.of("max_timeout_seconds is now " + policy.maxTimeoutSeconds());
        }
        return Optional.empty();
    }

    @Override
    public boolean live(UUID sessionId) {
        return QuarkusTransaction.requiringNew().call(() -> repository.byId(sessionId))
                .map(r -> r.status() != SessionStatus.DESTROYED).orElse(false);
    }

    /** One open shell: its sandbox and its materialised files, stored back once when it closes. */
    private final class Shell implements SessionShell {
        private final SessionRepository.Row session;
        private final SandboxSpec spec;
        private final WorkspaceRun files;
        private final AtomicBoolean closed = new AtomicBoolean();

        Shell(SessionRepository.Row session, SandboxSpec spec, WorkspaceRun files) {
            this.session = session;
            this.spec = spec;
            this.files = files;
        }

        @Override
        public UUID sessionId() {
            return session.id();
        }

        @Override
        public UUID tenantId() {
            return session.tenantId();
        }

        @Override
        public SandboxSpec sandbox() {
            return spec;
        }

        @Override
        public Optional<String> disallowedBy(TenantPolicy policy) {
            return disallowed(session, policy).or(() -> capBelow(spec.limits(), policy));
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            if (files.finish(true) instanceof StoreBack.Refused refused) {
                LOG.warnf("the files of session %s's shell were not stored: %s", session.id(), refused.message());
            }
            QuarkusTransaction.requiringNew().run(() -> repository.touch(session.id()));
        }
    }
}

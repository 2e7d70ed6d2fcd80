package dev.nixexec.session;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.catalog.Catalog;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobService;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.JobView;
import dev.nixexec.job.JobWaits;
import dev.nixexec.profile.Profile;
import dev.nixexec.profile.Profiles;
import dev.nixexec.profile.Spec;
import dev.nixexec.profile.WritablePath;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.workspace.JobFiles;
import dev.nixexec.workspace.WorkspaceService;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Sessions as REST and MCP use them, every call scoped to the caller's tenant (another tenant's
 * session is "not found"). A session's environment is built ONCE, by a job of its own (language
 * bash, the session's packages and network, code {@code true}: the worker builds the environment
 * and checks it starts), which the session follows: ready with that job's environment, or failed
 * with its reason. Its files are a workspace of its own ({@code session-<id>}: {@code workspace/},
 * {@code home/}, {@code cache/}), which every exec materialises and stores back. Each exec is a job
 * with the session's packages, network and env and {@code session_id} set.
 */
@ApplicationScoped
public class SessionService {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final UUID NIL = new UUID(0, 0);
    private static final int MAX_TEXT = 1000;
    /** Files a session's exec returns as artifacts: those it writes under /workspace/out. */
    static final String ARTIFACTS = "workspace/out";

    private final NixExecConfig config;
    private final SessionRepository repository;
    private final Profiles profiles;
    private final Tenants tenants;
    private final ExecutionEngine engine;
    private final JobService jobs;
    private final JobWaits waits;
    private final JobReads reads;
    private final JobTransitions transitions;
    private final WorkspaceService workspaces;
    private final AuditLog audit;
    private final Catalog catalog;
    private final HostWorkspaces hostWorkspaces;

    SessionService(NixExecConfig config, SessionRepository repository, Profiles profiles, Tenants tenants,
            ExecutionEngine engine, JobService jobs, JobWaits waits, JobReads reads, JobTransitions transitions,
            WorkspaceService workspaces, AuditLog audit, Catalog catalog, HostWorkspaces hostWorkspaces) {
        this.catalog = catalog;
        this.hostWorkspaces = hostWorkspaces;
        this.config = config;
        this.repository = repository;
        this.profiles = profiles;
        this.tenants = tenants;
        this.engine = engine;
        this.jobs = jobs;
        this.waits = waits;
        this.reads = reads;
        this.transitions = transitions;
        this.workspaces = workspaces;
        this.audit = audit;
    }

    /**
     * What a request comes to: the spec the session is built from, the profile it named, and the
     * host directory at its /workspace (the real path, checked).
     */
    private record Resolved(Spec spec, String profile, Optional<Path> hostWorkspace) {
    }

    /**
     * Checks the request (every refusal before anything is stored), stores the session with its
     * workspace, and queues its build; waits up to {@code wait} for it to be ready or failed. A build
     * that cannot even be queued takes the session and its workspace back with it.
     */
    public SessionView create(Caller caller, SessionRequest request, Duration wait) {
        requireWriter(caller, "create sessions");
        Resolved resolved = resolve(caller, request);
        Duration idleTtl = idleTtl(request.idleTtl());
        UUID id = UUID.randomUUID();
        if (request.name() != null) {
            replaceFailed(caller, request.name(), id);
        }
        SessionRepository.Row row = QuarkusTransaction.requiringNew().call(() -> {
            repository.lockTenant(caller.tenantId());
            long live = repository.live(caller.tenantId());
            int cap = config.sessions().maxPerTenant();
            if (live >= cap) {
                throw new Refusal(Refusal.Kind.TOO_MANY, "the tenant has " + live + " live sessions, its cap is " + cap
                        + "; destroy one (DELETE /v1/sessions/{id}) before creating another");
            }
            UUID workspace = workspaces.create(caller, "session-" + id, null, null).id();
            Spec spec = resolved.spec();
            SessionRepository.Row stored = new SessionRepository.Row(id, caller.tenantId(), caller.keyId(),
                    request.name(), SessionStatus.BUILDING, spec.packages(), resolved.profile(), spec.network(),
                    spec.env(), writable(spec), request.agent(), request.description(), idleTtl, null, workspace, null,
                    null, null, null, null, null, resolved.hostWorkspace().map(Path::toString).orElse(null));
            if (!repository.insert(stored)) {
                throw new Refusal(Refusal.Kind.CONFLICT, "a session named '" + request.name() + "' exists");
            }
            return stored;
        });
        JobService.Submitted build;
        try {
            build = jobs.submit(caller, new Submission(new ExecutionRequest("bash", "true", row.packages(), row.env(),
                    "", Optional.empty(), row.network()), OutputEncoding.UTF_8, Map.of(), Optional.empty(), List.of(),
                    JobFiles.NONE, Optional.of(id), Optional.empty(), Optional.empty()), null);
        } catch (RuntimeException e) {
            QuarkusTransaction.requiringNew().run(() -> {
                repository.forget(caller.tenantId(), id);
                workspaces.deleteOwned(caller.tenantId(), row.workspaceId());
            });
            throw e;
        }
        UUID buildJob = build.job().id();
        QuarkusTransaction.requiringNew().run(() -> {
            repository.buildJob(id, buildJob);
            jobs.markSessionBuild(buildJob);
            audit.record("session_created", caller.tenantId(), null, caller.keyId(), null, detail(row, Map.of(
                    "packages", row.packages(), "network", row.network() ? "full" : "off", "build_job_id", buildJob)));
        });
        if (wait.isPositive()) {
            waits.await(caller, buildJob, wait);
        }
        return SessionView.of(current(caller, id));
    }

    /**
     * A failed session frees its name: it runs nothing, so a new session of its name destroys it
     * (its files with it), audited as {@code session_replaced} with the new session's id.
     */
    private void replaceFailed(Caller caller, String name, UUID replacement) {
        QuarkusTransaction.requiringNew().call(() -> repository.find(caller.tenantId(), NIL, name))
                .map(row -> settled(caller, row)).filter(row -> row.status() == SessionStatus.FAILED)
                .ifPresent(failed -> QuarkusTransaction.requiringNew().run(() -> destroyNow(failed, caller.keyId(),
                        "session_replaced", Map.of("replaced_by", replacement))));
    }

    public List<SessionView> list(Caller caller) {
        List<SessionRepository.Row> rows = QuarkusTransaction.requiringNew().call(() -> repository.list(caller.tenantId()));
        return rows.stream().map(r -> SessionView.of(settled(caller, r))).toList();
    }

    /** The caller's session by id or name; 404 if its tenant has none. */
    public SessionView get(Caller caller, String idOrName) {
        return SessionView.of(settled(caller, find(caller, idOrName)));
    }

    /**
     * Runs a command in the caller's ready session as a job (the Job JSON with {@code session_id});
     * waits up to {@code wait} for it to end. A session that is building, failed or destroyed: 409,
     * nothing stored.
     */
    public JobService.Submitted exec(Caller caller, String idOrName, SessionExec exec, Duration wait) {
        SessionRepository.Row session = runnable(caller, idOrName);
        JobService.Submitted submitted = waits.submit(caller, submission(session, exec), null, wait);
        QuarkusTransaction.requiringNew().run(() -> repository.touch(session.id()));
        return submitted;
    }

    /** As {@link #exec(Caller, String, SessionExec, Duration)}, as the job {@code id} the caller watches already. */
    public JobView exec(Caller caller, String idOrName, SessionExec exec, UUID id) {
        SessionRepository.Row session = runnable(caller, idOrName);
        JobView job = jobs.submit(caller, submission(session, exec), null, id).job();
        QuarkusTransaction.requiringNew().run(() -> repository.touch(session.id()));
        return job;
    }

    /** The caller's session, if it can run a command now; 403, 404 or 409 otherwise. */
    private SessionRepository.Row runnable(Caller caller, String idOrName) {
        requireWriter(caller, "run commands in sessions");
        SessionRepository.Row session = settled(caller, find(caller, idOrName));
        switch (session.status()) {
            case BUILDING -> throw new Refusal(Refusal.Kind.CONFLICT, "session " + shown(session)
                    + " is still building its environment; run commands once its status is ready (GET it, or create it with ?wait=)");
            case FAILED -> throw new Refusal(Refusal.Kind.CONFLICT, "session " + shown(session)
                    + " failed to build its environment and runs nothing: " + session.error());
            case DESTROYED -> throw new Refusal(Refusal.Kind.CONFLICT, "session " + shown(session)
                    + " was destroyed; create a new one");
            case READY -> { }
        }
        return session;
    }

    /** Destroys the caller's session: its unfinished jobs cancelled, its files deleted; again: nothing more. */
    public void destroy(Caller caller, String idOrName) {
        requireWriter(caller, "destroy sessions");
        SessionRepository.Row session = find(caller, idOrName);
        QuarkusTransaction.requiringNew().run(() -> destroyNow(session, caller.keyId(), "session_destroyed"));
    }

    /**
     * In the caller's transaction: marks the session destroyed, cancels its unfinished jobs, deletes
     * its workspace and records {@code kind}; nothing if it was destroyed already.
     */
    void destroyNow(SessionRepository.Row session, UUID keyId, String kind) {
        destroyNow(session, keyId, kind, Map.of());
    }

    private void destroyNow(SessionRepository.Row session, UUID keyId, String kind, Map<String, Object> more) {
        if (repository.destroy(session.tenantId(), session.id()).isEmpty()) {
            return;
        }
        List<UUID> unfinished = reads.unfinishedOfSession(session.tenantId(), session.id());
        for (UUID job : unfinished) {
            transitions.cancel(session.tenantId(), job, keyId);
        }
        if (session.workspaceId() != null) {
            workspaces.deleteOwned(session.tenantId(), session.workspaceId());
        }
        Map<String, Object> detail = new LinkedHashMap<>(more);
        detail.put("cancelled_jobs", unfinished);
        audit.record(kind, session.tenantId(), null, keyId, null, detail(session, detail));
    }

    // ---------------------------------------------------------------- the build, followed

    /** The session as it is now, its build's end taken over if it ended since. */
    private SessionRepository.Row current(Caller caller, UUID id) {
        return settled(caller, QuarkusTransaction.requiringNew().call(() -> repository.byId(id)).orElseThrow());
    }

    /**
     * A building session whose build job ended becomes ready (with the job's environment) or failed
     * (with the job's reason), in one guarded update, whoever reads it first.
     */
    SessionRepository.Row settled(Caller caller, SessionRepository.Row row) {
        if (row.status() != SessionStatus.BUILDING || row.buildJobId() == null) {
            return row;
        }
        JobView build = reads.get(caller, row.buildJobId());
        if (!build.terminal()) {
            return row;
        }
        boolean ready = build.status().equals("succeeded") && build.environment() != null;
        return QuarkusTransaction.requiringNew().call(() -> {
            repository.settle(row.id(), ready ? SessionStatus.READY : SessionStatus.FAILED,
                    ready ? build.environment().storePath() : null, ready ? build.environment().nixpkgsRevision() : null,
                    ready ? null : reason(build));
            return repository.byId(row.id()).orElseThrow();
        });
    }

    /** Why a build job did not give an environment, in the job's own words. */
    static String reason(JobView build) {
        if (build.error() != null) {
            return build.error().code() + ": " + build.error().message();
        }
        if (build.status().equals("cancelled")) {
            return "the build was cancelled";
        }
        String stderr = build.stderr() == null ? "" : build.stderr().strip();
        return "the environment did not start (" + build.status() + (build.exitCode() == null ? "" : ", exit code "
                + build.exitCode()) + ")" + (stderr.isEmpty() ? "" : ": " + stderr);
    }

    // ---------------------------------------------------------------- checks

    SessionRepository.Row find(Caller caller, String idOrName) {
        String wanted = idOrName == null ? "" : idOrName.strip();
        UUID id;
        try {
            id = UUID.fromString(wanted);
        } catch (IllegalArgumentException e) {
            id = NIL;
        }
        UUID byId = id;
        return QuarkusTransaction.requiringNew().call(() -> repository.find(caller.tenantId(), byId, wanted))
                .orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "no session " + idOrName));
    }

    private Resolved resolve(Caller caller, SessionRequest r) {
        List<FieldError> errors = new ArrayList<>();
        long given = Stream.of(r.packages(), r.profile(), r.spec()).filter(java.util.Objects::nonNull).count();
        if (given > 1) {
            throw invalid("packages", "give one of packages, profile or spec, not "
                    + Stream.of(r.packages() == null ? null : "packages", r.profile() == null ? null : "profile",
                            r.spec() == null ? null : "spec").filter(java.util.Objects::nonNull)
                    .collect(Collectors.joining(" and ")));
        }
        Spec base;
        String profile = null;
        if (r.profile() != null) {
            Profile found = profiles.find(caller.tenantId(), r.profile()).orElseThrow(() -> invalid("profile",
                    "unknown profile '" + r.profile() + "'; known: " + profiles.list(caller.tenantId()).stream()
                            .map(Profile::name).collect(Collectors.joining(", "))));
            base = found.spec();
            profile = found.name();
        } else if (r.spec() != null) {
            // the spec's words read as a profile's are (SpecBody); unreadable ones are reported with the rest
            base = r.spec().read("spec.", errors).orElse(new Spec(List.of(), Map.of(), false, null));
        } else {
            base = new Spec(catalog.resolve(r.packages()), Map.of(), false, null);
        }
        boolean network = network("network", r.network(), base.network(), errors);
        Map<String, String> env = new LinkedHashMap<>(base.env());
        env.putAll(r.env());
        if (r.name() != null && (!NAME.matcher(r.name()).matches() || looksLikeId(r.name()))) {
            errors.add(new FieldError("name", "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or "
                    + "digit, and not an id"));
        }
        if (r.agent() != null && r.agent().length() > MAX_TEXT) {
            errors.add(new FieldError("agent", "at most " + MAX_TEXT + " characters"));
        }
        if (r.description() != null && r.description().length() > MAX_TEXT) {
            errors.add(new FieldError("description", "at most " + MAX_TEXT + " characters"));
        }
        Optional<Path> host = hostWorkspace(r.hostWorkspace(), errors);
        if (network && !tenants.policy(caller.tenantId()).networkAllowed()) {
            errors.add(new FieldError(profile != null ? "profile" : "network", (profile != null ? "profile '" + profile
                    + "' needs network \"full\", which" : "network \"full\"") + " is not allowed for this tenant"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        // the engine's own rules for packages and env, as the build job will meet them
        engine.validate(new ExecutionRequest("bash", "true", base.packages(), env, "", Optional.empty(), network));
        return new Resolved(new Spec(base.packages(), env, network, base.writable()), profile, host);
    }

    /**
     * nixo's {@code create --workspace DIR}: a host directory at the session's /workspace, only in
     * the single-user local mode and inside {@code nixexec.mcp.roots.allowed-prefixes}, as an MCP
     * root is ({@link HostWorkspaces}: asked again before each run). With keys on, never.
     */
    private Optional<Path> hostWorkspace(String asked, List<FieldError> errors) {
        if (asked == null) {
            return Optional.empty();
        }
        if (config.auth().enabled()) {
            errors.add(new FieldError("host_workspace", "a host directory is mounted only in local mode "
                    + "(nixexec.auth.enabled=false); on a server with keys, put the files in a tenant workspace "
                    + "(POST /v1/workspaces, then PUT /v1/workspaces/{id}/files/{path}) and name it in a job's workspace"));
            return Optional.empty();
        }
        Optional<Path> permitted;
        try {
            permitted = hostWorkspaces.permit(Path.of(asked));
        } catch (java.nio.file.InvalidPathException e) {
            permitted = Optional.empty();
        }
        if (permitted.isEmpty()) {
            errors.add(new FieldError("host_workspace", "not a directory this service may mount: the absolute "
                    + "path of an existing directory inside "
                    + "nixexec.mcp.roots.allowed-prefixes, with nixexec.mcp.roots.enabled=true"));
        }
        return permitted;
    }

    private Duration idleTtl(Optional<Duration> asked) {
        Duration max = config.sessions().maxIdleTtl();
        Duration ttl = asked.orElse(config.sessions().idleTtl());
        if (!ttl.isPositive() || ttl.compareTo(max) > 0) {
            throw invalid("idle_ttl", "must be more than 0 and at most " + max.toSeconds() + "s");
        }
        return ttl;
    }

    private static boolean network(String field, String word, boolean otherwise, List<FieldError> errors) {
        if (word == null) {
            return otherwise;
        }
        if (!word.equals("off") && !word.equals("full")) {
            errors.add(new FieldError(field, "must be \"off\" or \"full\""));
            return false;
        }
        return word.equals("full");
    }

    private static List<String> writable(Spec spec) {
        return Arrays.stream(WritablePath.values()).filter(spec.writable()::contains).map(WritablePath::path).toList();
    }

    /** An exec as the job it runs as. */
    private static Submission submission(SessionRepository.Row session, SessionExec exec) {
        boolean hasCommand = exec.command() != null;
        boolean hasCode = exec.language() != null || exec.code() != null;
        if (hasCommand == hasCode) {
            throw invalid("command", "give either command (an argv) or language and code");
        }
        String language;
        String code;
        if (hasCommand) {
            language = "bash";
            code = commandScript(exec.command());
        } else {
            language = exec.language();
            code = exec.code();
        }
        Map<String, String> env = new LinkedHashMap<>(session.env());
        env.putAll(exec.env());
        return new Submission(new ExecutionRequest(language, code, session.packages(), env, exec.stdin(),
                exec.timeout(), session.network()).withLimits(exec.limits()), OutputEncoding.UTF_8, Map.of(),
                Optional.ofNullable(session.hostWorkspace()).map(Path::of), List.of(),
                new JobFiles(Optional.of(session.workspaceId().toString()), List.of(), List.of(ARTIFACTS)),
                Optional.of(session.id()), Optional.empty(), Optional.empty());
    }

    /**
     * An argv as the bash line that execs it: every word single-quoted, so bash expands nothing and
     * replaces itself with the program found on the environment's PATH, its arguments as given.
     */
    static String commandScript(List<String> argv) {
        if (argv.isEmpty()) {
            throw invalid("command", "an argv of at least one word");
        }
        StringBuilder line = new StringBuilder("exec --");
        for (int i = 0; i < argv.size(); i++) {
            String word = argv.get(i);
            if (word == null || word.indexOf('\0') >= 0 || (i == 0 && word.isEmpty())) {
                throw invalid("command[" + i + "]", "a word without NUL characters (the first not empty)");
            }
            line.append(" '").append(word.replace("'", "'\\''")).append('\'');
        }
        return line.append('\n').toString();
    }

    private static boolean looksLikeId(String name) {
        try {
            UUID.fromString(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void requireWriter(Caller caller, String what) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot " + what);
        }
    }

    private static String shown(SessionRepository.Row session) {
        return session.name() == null ? session.id().toString() : "'" + session.name() + "'";
    }

    private static Map<String, Object> detail(SessionRepository.Row session, Map<String, Object> more) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("session_id", session.id());
        if (session.name() != null) {
            detail.put("name", session.name());
        }
        detail.putAll(more);
        return detail;
    }

    private static InvalidRequestException invalid(String field, String message) {
        return new InvalidRequestException(List.of(new FieldError(field, message)), false);
    }
}

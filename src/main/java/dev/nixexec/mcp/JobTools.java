package dev.nixexec.mcp;

import static dev.nixexec.mcp.ToolErrors.refusalsAsErrors;

import dev.nixexec.config.HostMount;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobService;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.JobView;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobWatch;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.nix.Language;
import dev.nixexec.nix.PackageIndex;
import dev.nixexec.session.SessionExec;
import dev.nixexec.session.SessionService;
import dev.nixexec.tenant.Caller;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.profile.ProfileSubmissions;
import dev.nixexec.workspace.Artifact;
import dev.nixexec.workspace.JobFiles;
import dev.nixexec.workspace.WorkspacePath;
import dev.nixexec.workspace.WorkspaceService;
import io.quarkiverse.mcp.server.Cancellation;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.McpConnection;
import io.quarkiverse.mcp.server.McpLog;
import io.quarkiverse.mcp.server.Progress;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.Roots;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolGuardrails;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.RunOnVirtualThread;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The MCP tools: thin over {@link JobService} (intake, which does all validation, and cancel),
 * {@link JobReads} and {@link JobWaits}. Refusals an agent can act on
 * ({@link InvalidRequestException}, {@link Refusal}) become one-line {@code isError} results.
 */
public class JobTools {

    private static final String LANGUAGE = "Language of the code: python, bash, node, haskell, lua, ruby, perl or octave.";
    private static final String CODE = "The program's source code, run as the main file of the language.";
    private static final String PACKAGES = "Nix packages (nixpkgs attribute names) to make available. Libraries of the "
            + "language go by their package set: python3Packages.numpy, haskellPackages.text, lua5_4Packages.luafilesystem, "
            + "rubyPackages.nokogiri, perlPackages.JSON, octavePackages.statistics; any other name is a tool put on "
            + "PATH, e.g. jq or typescript. Call list_languages for the sets.";
    private static final String ENV = "Environment variables for the program, name to value.";
    private static final String STDIN = "Text fed to the program's standard input.";
    private static final String TIMEOUT = "Wall-clock limit of the run in seconds; omitted: the service default (30 unless configured).";
    private static final String PROFILE = "A profile to run under (list_profiles): its packages are added to packages, "
            + "its env and network mode apply, its timeout is the default and the most.";
    private static final String JOB_ID = "The job id returned by run_code or submit_job.";
    private static final String FILES = "Host files or directories (absolute paths) mounted read-only in the sandbox "
            + "at the same paths. Local mode only, under nixexec.mcp.roots.allowed-prefixes.";
    private static final String WRITABLE_FILES = "Host files or directories (absolute paths) mounted read-write in the "
            + "sandbox at the same paths: what the code writes there lands on the host. Local mode only, under "
            + "nixexec.mcp.roots.allowed-prefixes.";

    /** A client that does not answer roots/list in this time gets no host workspace. */
    private static final Duration ROOTS_WAIT = Duration.ofSeconds(5);

    private final JobService jobs;
    private final JobReads reads;
    private final JobWaits waits;
    private final NixExecConfig config;
    private final SecurityIdentity identity;
    private final HostWorkspaces hostWorkspaces;
    private final WorkspaceService workspaces;
    private final SessionWorkspaces sessionWorkspaces;
    private final KeyLimits limits;
    private final KnownArguments knownArguments;
    private final ProfileSubmissions profiles;
    private final SessionService sessions;
    private final PackageIndex packageIndex;

    public JobTools(JobService jobs, JobReads reads, JobWaits waits, NixExecConfig config, SecurityIdentity identity, HostWorkspaces hostWorkspaces,
            WorkspaceService workspaces, SessionWorkspaces sessionWorkspaces, KeyLimits limits,
            KnownArguments knownArguments, ProfileSubmissions profiles, SessionService sessions, PackageIndex packageIndex) {
        this.packageIndex = packageIndex;
        this.profiles = profiles;
        this.sessions = sessions;
        this.limits = limits;
        this.knownArguments = knownArguments;
        this.workspaces = workspaces;
        this.sessionWorkspaces = sessionWorkspaces;
        this.jobs = jobs;
        this.reads = reads;
        this.waits = waits;
        this.config = config;
        this.identity = identity;
        this.hostWorkspaces = hostWorkspaces;
    }

    @ToolGuardrails(input = ArgumentShapes.class)
    @Tool(name = "run_code", description = "Run code in a sandbox with the given Nix packages and wait for it: returns "
            + "the exit code, stdout and stderr, and the files it created or changed under /workspace/out/ (PNG, JPEG, "
            + "GIF and WebP as images). "
            + "/workspace is this session's workspace: files persist between calls. If it runs longer than the wait, "
            + "returns the job id to pass to get_job with the output so far.",
            inputSchema = @Tool.InputSchema(generator = LanguageEnumSchema.class),
            outputSchema = @Tool.OutputSchema(from = JobView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = false,
                    openWorldHint = true))
    @RunOnVirtualThread
    ToolResponse runCode(@ToolArg(description = LANGUAGE) String language,
            @ToolArg(description = CODE) String code,
            @ToolArg(description = PACKAGES, required = false) List<String> packages,
            @ToolArg(description = ENV, required = false) Map<String, String> env,
            @ToolArg(description = STDIN, required = false) String stdin,
            @ToolArg(description = TIMEOUT, required = false) Integer timeout,
            @ToolArg(description = WorkspaceTools.WORKSPACE, required = false) String workspace,
            @ToolArg(description = PROFILE, required = false) String profile,
            @ToolArg(description = "A session's id or name (create_session): run in its environment and files, "
                    + "with its packages, instead of packages and workspace.", required = false) String session,
            @ToolArg(description = FILES, required = false) List<String> files,
            @ToolArg(name = "writable_files", description = WRITABLE_FILES, required = false) List<String> writableFiles,
            Progress progress, McpLog log, Cancellation cancellation, Roots roots, McpConnection connection,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            refuseWithEveryProblem(message, language, code, packages, env, stdin, timeout);
            CallerIdentity.writer(identity, "run_code");
            Optional<Duration> limit = Optional.ofNullable(timeout).map(Duration::ofSeconds);
            if (session != null) {
                if (packages != null || workspace != null || profile != null || files != null || writableFiles != null) {
                    throw new InvalidRequestException(List.of(new FieldError("session", "a session brings its own "
                            + "packages and files: give session, or packages, profile, workspace, files and "
                            + "writable_files")), false);
                }
                return followed(id -> sessions.exec(caller(), session, new SessionExec(null, language, code, stdin, env,
                        limit), id), progress, log, cancellation);
            }
            List<HostMount> mounts = hostMounts(files, writableFiles);
            ExecutionRequest run = new ExecutionRequest(language, code, packages, env, stdin, limit, false);
            return followed(id -> submit(id, run, roots, workspace, profile, connection, mounts), progress, log,
                    cancellation);
        });
    }

    /**
     * A call whose arguments have problems of their own (unknown, of the wrong type: left out by
     * {@link ArgumentShapes}) is refused with them and everything intake finds in the rest, in one line.
     */
    private void refuseWithEveryProblem(RawMessage message, String language, String code, List<String> packages,
            Map<String, String> env, String stdin, Integer timeout) {
        List<FieldError> found = knownArguments.problems(message);
        if (!found.isEmpty()) {
            throw jobs.refusal(found, Submission.of(new ExecutionRequest(language, code, packages, env, stdin,
                    Optional.ofNullable(timeout).map(Duration::ofSeconds), false)));
        }
    }

    /**
     * Submits as a job of a chosen id, watched before it exists so that no change of it goes
     * unheard, and follows it for the MCP run wait: its result, or the job id to poll.
     */
    ToolResponse followed(java.util.function.Function<UUID, JobView> submit, Progress progress, McpLog log,
            Cancellation cancellation) {
        UUID id = UUID.randomUUID();
        JobFollow follow = new JobFollow(jobs, caller(), id, progress, log, cancellation);
        try (KeyLimits.Wait held = limits.startWait(caller()); JobWatch watch = waits.watch(id)) {
            submit.apply(id);
            return result(waits.follow(caller(), watch, config.mcp().runWait(), JobFollow.CANCEL_CHECK, follow),
                    follow::output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return result(reads.get(caller(), id));
        }
    }

    @ToolGuardrails(input = ArgumentShapes.class)
    @Tool(name = "submit_job", description = "Queue code like run_code but return the job id at once; "
            + "read the result later with get_job.",
            inputSchema = @Tool.InputSchema(generator = LanguageEnumSchema.class),
            outputSchema = @Tool.OutputSchema(from = JobView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = false,
                    openWorldHint = true))
    @RunOnVirtualThread
    ToolResponse submitJob(@ToolArg(description = LANGUAGE) String language,
            @ToolArg(description = CODE) String code,
            @ToolArg(description = PACKAGES, required = false) List<String> packages,
            @ToolArg(description = ENV, required = false) Map<String, String> env,
            @ToolArg(description = STDIN, required = false) String stdin,
            @ToolArg(description = TIMEOUT, required = false) Integer timeout,
            @ToolArg(description = WorkspaceTools.WORKSPACE, required = false) String workspace,
            @ToolArg(description = PROFILE, required = false) String profile,
            @ToolArg(description = FILES, required = false) List<String> files,
            @ToolArg(name = "writable_files", description = WRITABLE_FILES, required = false) List<String> writableFiles,
            Roots roots, McpConnection connection, RawMessage message) {
        return refusalsAsErrors(() -> {
            refuseWithEveryProblem(message, language, code, packages, env, stdin, timeout);
            CallerIdentity.writer(identity, "submit_job");
            List<HostMount> mounts = hostMounts(files, writableFiles);
            JobView job = submit(UUID.randomUUID(), new ExecutionRequest(language, code, packages, env, stdin,
                    Optional.ofNullable(timeout).map(Duration::ofSeconds), false), roots, workspace, profile,
                    connection, mounts);
            return new ToolResponse(false, List.of(new TextContent("Job " + job.id() + ": " + job.status()
                    + ". Call get_job with this job_id for the result.")), job, null);
        });
    }

    @ToolGuardrails(input = ArgumentShapes.class)
    @Tool(name = "get_job", description = "The status and, once finished, the exit code, stdout, stderr and artifacts "
            + "of a job; while it runs, its output so far.",
            outputSchema = @Tool.OutputSchema(from = JobView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse getJob(@ToolArg(name = "job_id", description = JOB_ID) String jobId,
            @ToolArg(description = "Seconds to wait for the job to finish (at most 60); 0 or omitted: answer at once.",
                    required = false) Integer wait, RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            Duration waitFor = Duration.ofSeconds(wait == null ? 0 : Math.max(0, wait));
            if (!waitFor.isPositive()) {
                return result(reads.get(caller(), jobId(jobId)));
            }
            try (KeyLimits.Wait held = limits.startWait(caller())) {
                return result(waits.await(caller(), jobId(jobId), waitFor));
            }
        });
    }

    @Tool(name = "cancel_job", description = "Cancel a queued or running job; returns its status. "
            + "A running job ends as cancelled shortly after.",
            outputSchema = @Tool.OutputSchema(from = JobView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = true,
                    openWorldHint = false))
    ToolResponse cancelJob(@ToolArg(name = "job_id", description = JOB_ID) String jobId, RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            JobView job = jobs.cancel(CallerIdentity.writer(identity, "cancel_job"), jobId(jobId));
            return new ToolResponse(false, List.of(new TextContent("Job " + job.id() + ": " + job.status())), job, null);
        });
    }

    @Tool(name = "list_jobs", description = "Recent jobs of your tenant, newest first: id, status, language, "
            + "creation time and exit code.",
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    ToolResponse listJobs(@ToolArg(description = "Only jobs with this status: queued, building, running, succeeded, "
            + "failed, timed_out, cancelled or error.", required = false) String status,
            @ToolArg(description = "How many jobs, 1 to 100; default 20.", required = false) Integer limit,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            JobStatus wanted = status == null ? null : JobStatus.byId(status).orElseThrow(() ->
                    new InvalidRequestException(List.of(new FieldError("status", "unknown status '" + status + "'")), false));
            int pageSize = limit == null ? 20 : limit;
            if (pageSize < 1 || pageSize > 100) {
                throw new InvalidRequestException(List.of(new FieldError("limit", "must be 1 to 100")), false);
            }
            JobReads.Page page = reads.list(caller(), new JobReads.Filter(wanted, null, null, null), pageSize, null);
            return ToolResponse.success(JobText.list(page.items()));
        });
    }

    @Tool(name = "list_languages", description = "The languages, their interpreters and how to name their packages.",
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    ToolResponse listLanguages(RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            // the interpreter's version as GET /v1/languages has it: known once the package index is listed
            Map<Language, String> versions = packageIndex.interpreterVersions();
            return ToolResponse.success(Arrays.stream(Language.values())
                    .map(l -> l.id() + ": interpreter " + l.interpreter()
                            + Optional.ofNullable(versions.get(l)).map(v -> " " + v).orElse("") + l.packageSet()
                            .map(set -> ", libraries as " + set + ".<name>").orElse(", no library set")
                            + ", e.g. " + l.examplePackage())
                    .collect(Collectors.joining("\n")));
        });
    }

    private JobView submit(UUID id, ExecutionRequest run, Roots roots, String workspace, String profile,
            McpConnection connection, List<HostMount> mounts) {
        Optional<Path> host = workspace == null ? workspace(roots) : Optional.empty();
        if (host.isPresent() || (workspace != null && !workspace.isBlank())) {
            // a mounted project directory (local mode) replaces the session's workspace
            return submit(id, run, profile, host, mounts, host.isPresent() ? null : workspace);
        }
        try {
            return submit(id, run, profile, Optional.empty(), mounts, sessionWorkspaces.id(caller(), connection).toString());
        } catch (Refusal e) {
            // the session's workspace was deleted since it was kept: the session gets a fresh one
            if (e.kind() != Refusal.Kind.NOT_FOUND || !sessionWorkspaces.forget(caller(), connection)) {
                throw e;
            }
            return submit(id, run, profile, Optional.empty(), mounts, sessionWorkspaces.id(caller(), connection).toString());
        }
    }

    /** Submits {@code run} in the named workspace (none: a fresh one) under the profile, if any. */
    private JobView submit(UUID id, ExecutionRequest run, String profile, Optional<Path> host, List<HostMount> mounts,
            String workspace) {
        JobFiles files = workspace == null ? JobFiles.NONE : new JobFiles(Optional.of(workspace), null, null);
        return jobs.submit(caller(), underProfile(profile, new Submission(run, OutputEncoding.UTF_8, Map.of(), host,
                mounts, files, Optional.empty(), Optional.empty(), Optional.empty())), null, id).job();
    }

    /** nix-exec's files and writable_files, checked: a one-line refusal for the first that may not be mounted. */
    private List<HostMount> hostMounts(List<String> files, List<String> writableFiles) {
        try {
            return hostWorkspaces.mounts(files, writableFiles);
        } catch (HostWorkspaces.Refused e) {
            throw new InvalidRequestException(List.of(new FieldError(e.field(), e.getMessage())), false);
        }
    }

    /** The submission under the named profile (its packages, env, network, timeout); as it is for none. */
    private Submission underProfile(String profile, Submission submission) {
        return profile == null ? submission : profiles.apply(caller(), profile, submission, Optional.empty());
    }

    /**
     * In local mode with roots enabled: the client's first {@code file://} root that may be
     * mounted, as nix-exec mounts the project directory. Otherwise, or for a client without roots,
     * none: the job gets a fresh /workspace.
     */
    private Optional<Path> workspace(Roots roots) {
        if (!hostWorkspaces.enabled() || !roots.isSupported()) {
            return Optional.empty();
        }
        return roots.list().ifNoItem().after(ROOTS_WAIT).recoverWithItem(List.of())
                .onFailure().recoverWithItem(List.of()).await().indefinitely().stream()
                .map(root -> hostWorkspaces.fromRoot(root.uri()))
                .flatMap(Optional::stream).findFirst();
    }

    /** {@link #result(JobView, Supplier)} with a job's output so far read from its events. */
    private ToolResponse result(JobView job) {
        return result(job, () -> OutputSoFar.read(reads, caller(), job.id()));
    }

    /**
     * The text of a job and, as structured content, its fields as REST gives them (the
     * {@code outputSchema} of the job tools); an error result once it has ended other than
     * succeeded. After the text come the job's artifacts, the files it created or changed.
     */
    private ToolResponse result(JobView job, Supplier<OutputSoFar> soFar) {
        if (!job.terminal()) {
            return new ToolResponse(false, List.of(new TextContent(JobText.running(job, soFar.get()))), job, null);
        }
        List<Content> contents = new ArrayList<>();
        contents.add(new TextContent(JobText.result(job)));
        for (Artifact artifact : job.artifacts() == null ? List.<Artifact>of() : job.artifacts()) {
            contents.add(FileContents.of(workspaces.artifact(caller(), job.id(), new WorkspacePath(artifact.name())),
                    "nixexec://jobs/" + job.id() + "/artifacts/" + artifact.name()));
        }
        return new ToolResponse(!JobStatus.SUCCEEDED.id().equals(job.status()), contents, job, null);
    }

    private Caller caller() {
        return CallerIdentity.caller(identity);
    }

    private static UUID jobId(String id) {
        try {
            return UUID.fromString(id == null ? "" : id.strip());
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(List.of(new FieldError("job_id", "not a job id: '" + id + "'")), false);
        }
    }
}

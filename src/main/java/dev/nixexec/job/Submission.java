package dev.nixexec.job;

import dev.nixexec.config.HostMount;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.workspace.JobFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a caller submits. An empty timeout means the service default. A host workspace comes
 * only from an MCP root in local mode, already checked by {@link HostWorkspaces}. A session's
 * job names its session (the session side has checked it is the caller's and ready). A
 * {@code callbackUrl} gets the job JSON once it ends (webhook/CallbackDeliveries). The fields
 * {@code limits} leaves out keep the service's defaults (narrowed by the tenant's caps).
 */
public record Submission(String language, String code, List<String> packages, Map<String, String> env,
        String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
        Optional<Path> hostWorkspace, JobFiles files, Optional<UUID> session, Optional<String> callbackUrl,
        RequestedLimits limits, List<String> args, OutputEncoding encoding, Optional<RerunOf> rerunOf,
        List<HostMount> hostMounts) {

    public Submission {
        hostMounts = hostMounts == null ? List.of() : List.copyOf(hostMounts);
        callbackUrl = callbackUrl == null ? Optional.empty() : callbackUrl;
        limits = limits == null ? RequestedLimits.NONE : limits;
        // Not List.copyOf: a null element is the caller's mistake, refused with a field error.
        args = args == null ? List.of() : java.util.Collections.unmodifiableList(new ArrayList<>(args));
        encoding = encoding == null ? OutputEncoding.UTF_8 : encoding;
        rerunOf = rerunOf == null ? Optional.empty() : rerunOf;
        session = session == null ? Optional.empty() : session;
        files = files == null ? JobFiles.NONE : files;
        packages = packages == null ? List.of() : List.copyOf(packages);
        env = env == null ? Map.of() : Map.copyOf(env);
        stdin = stdin == null ? "" : stdin;
        timeout = timeout == null ? Optional.empty() : timeout;
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        hostWorkspace = hostWorkspace == null ? Optional.empty() : hostWorkspace;
    }

    /** A submission without a callback, under the service's default limits, with no arguments, text output, not a rerun. */
    public Submission(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
            Optional<Path> hostWorkspace, JobFiles files, Optional<UUID> session) {
        this(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace, files, session,
                Optional.empty(), RequestedLimits.NONE, List.of(), OutputEncoding.UTF_8, Optional.empty(), List.of());
    }

    /** The same submission with this callback. */
    public Submission withCallbackUrl(Optional<String> url) {
        return new Submission(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace,
                files, session, url, limits, args, encoding, rerunOf, hostMounts);
    }

    /** The same submission asking for {@code requested} limits. */
    public Submission withLimits(RequestedLimits requested) {
        return new Submission(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace,
                files, session, callbackUrl, requested, args, encoding, rerunOf, hostMounts);
    }

    /** A submission that belongs to no session. */
    public Submission(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
            Optional<Path> hostWorkspace, JobFiles files) {
        this(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace, files,
                Optional.empty());
    }

    /** A submission with no host workspace: what REST and remote tenants send. */
    public Submission(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata) {
        this(language, code, packages, env, stdin, timeout, network, metadata, Optional.empty(), JobFiles.NONE);
    }

    /** A submission with a host workspace (MCP roots, local mode) and no files. */
    public Submission(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
            Optional<Path> hostWorkspace) {
        this(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace, JobFiles.NONE);
    }

    /** The same submission with arguments for the program. */
    public Submission withArgs(List<String> arguments) {
        return new Submission(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace,
                files, session, callbackUrl, limits, arguments, encoding, rerunOf, hostMounts);
    }

    /** The same submission with its output in {@code outputEncoding}. */
    public Submission withEncoding(OutputEncoding outputEncoding) {
        return new Submission(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace,
                files, session, callbackUrl, limits, args, outputEncoding, rerunOf, hostMounts);
    }

    /** The same submission with host paths mounted at their own paths (local mode, checked by {@link HostWorkspaces}). */
    public Submission withHostMounts(List<HostMount> mounts) {
        return new Submission(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace,
                files, session, callbackUrl, limits, args, encoding, rerunOf, mounts);
    }

    ExecutionRequest execution() {
        return new ExecutionRequest(language, code, packages, env, stdin, timeout, network, limits, args);
    }

    /** The job a rerun repeats, and the nixpkgs revision that job ran on (none: it never got an environment). */
    public record RerunOf(UUID job, Optional<String> nixpkgsRevision) {
    }
}

package dev.nixexec.job;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.nixexec.config.HostMount;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.workspace.JobFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a caller asks of a job, from intake to the sandbox: {@code run} is what to run (an empty
 * timeout and the limits it leaves out mean the service's defaults, narrowed by the tenant's caps),
 * {@code encoding} how its output is returned. A host workspace comes only from an MCP root in local
 * mode, and host mounts only in local mode, both checked by {@link HostWorkspaces}. A session's job
 * names its session (the session side has checked it is the caller's and ready). A {@code callbackUrl}
 * gets the job JSON once it ends (webhook/CallbackDeliveries). A claimed job carries it back as
 * stored ({@link ClaimedJob}). Its JSON is the job's {@code request} document: what to run, how, and
 * where on the host; a new field of a request belongs there, so it is stored and read back with no
 * column of its own. The ignored parts have columns (metadata, session, rerun) or tables (files,
 * callback) of their own.
 */
public record Submission(ExecutionRequest run, OutputEncoding encoding, @JsonIgnore Map<String, Object> metadata,
        Optional<Path> hostWorkspace, List<HostMount> hostMounts, @JsonIgnore JobFiles files,
        @JsonIgnore Optional<UUID> session, @JsonIgnore Optional<String> callbackUrl,
        @JsonIgnore Optional<RerunOf> rerunOf) {

    public Submission {
        encoding = encoding == null ? OutputEncoding.UTF_8 : encoding;
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        hostWorkspace = hostWorkspace == null ? Optional.empty() : hostWorkspace;
        hostMounts = hostMounts == null ? List.of() : List.copyOf(hostMounts);
        files = files == null ? JobFiles.NONE : files;
        session = session == null ? Optional.empty() : session;
        callbackUrl = callbackUrl == null ? Optional.empty() : callbackUrl;
        rerunOf = rerunOf == null ? Optional.empty() : rerunOf;
    }

    /** {@code run} as a job of its own: text output, no metadata, host paths, files, session or callback; not a rerun. */
    public static Submission of(ExecutionRequest run) {
        return new Submission(run, OutputEncoding.UTF_8, Map.of(), Optional.empty(), List.of(), JobFiles.NONE,
                Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The same submission running {@code other} (a profile's packages, env, network and timeout added). */
    public Submission withRun(ExecutionRequest other) {
        return new Submission(other, encoding, metadata, hostWorkspace, hostMounts, files, session, callbackUrl, rerunOf);
    }

    /** The same stored document with the parts its job's columns hold. */
    Submission with(Map<String, Object> metadata, Optional<UUID> session, Optional<RerunOf> rerunOf) {
        return new Submission(run, encoding, metadata, hostWorkspace, hostMounts, files, session, callbackUrl, rerunOf);
    }

    /** The job a rerun repeats, and the nixpkgs revision that job ran on (none: it never got an environment). */
    public record RerunOf(UUID job, Optional<String> nixpkgsRevision) {
    }
}

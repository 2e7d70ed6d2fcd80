package dev.nixexec.sandbox;

import dev.nixexec.config.HostMount;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One run: the environment's store path and closure, the code file, the interpreter invocation
 * (relative to {@code <env>/bin}), validated user variables, stdin, limits and, in local mode
 * only, a checked host directory to mount read-write at {@code /workspace} instead of a fresh one;
 * or a workspace the worker materialised in a private directory of its own, which the sandbox
 * gives to the run's uid before mounting it; or a session's {@link PersistentPaths} (materialised
 * the same way) at /workspace, /home/sandbox and /cache, in local mode with a checked host
 * directory at /workspace instead of the session's own. {@code args} follow the code file in the
 * program's argv, each its own element. {@code hostMounts} (local mode only, checked) are host paths
 * bind-mounted at their own paths, read-only or read-write.
 */
public record SandboxSpec(String environmentPath, List<String> closure, String codeFileName, byte[] code,
        List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network,
        Optional<Path> hostWorkspace, Optional<Path> materialisedWorkspace, Optional<PersistentPaths> persistent,
        List<String> args, List<HostMount> hostMounts) {

    public SandboxSpec {
        hostMounts = hostMounts == null ? List.of() : List.copyOf(hostMounts);
        args = args == null ? List.of() : List.copyOf(args);
        persistent = persistent == null ? Optional.empty() : persistent;
        closure = List.copyOf(closure);
        command = List.copyOf(command);
        env = Map.copyOf(env);
        hostWorkspace = hostWorkspace == null ? Optional.empty() : hostWorkspace;
        materialisedWorkspace = materialisedWorkspace == null ? Optional.empty() : materialisedWorkspace;
        // a session's persistent paths may have a host directory at /workspace; nothing else combines
        if (materialisedWorkspace.isPresent() && (hostWorkspace.isPresent() || persistent.isPresent())) {
            throw new IllegalArgumentException("a run has one /workspace");
        }
    }

    /** The directory the run's uid is given before the run: a materialised workspace or the persistent paths' root. */
    public Optional<Path> runOwned() {
        return materialisedWorkspace.or(() -> persistent.map(PersistentPaths::root));
    }

    /** The directory bind-mounted at {@code /workspace}; empty: a sized tmpfs. */
    public Optional<Path> workspaceMount() {
        return hostWorkspace.or(() -> materialisedWorkspace);
    }
}

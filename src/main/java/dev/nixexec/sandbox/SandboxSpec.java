package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One run: the environment's store path and closure, the code file, the interpreter invocation
 * (relative to {@code <env>/bin}), validated user variables, stdin, limits and, in local mode
 * only, a checked host directory to mount read-write at {@code /workspace} instead of a fresh one.
 */
public record SandboxSpec(String environmentPath, List<String> closure, String codeFileName, byte[] code,
        List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network,
        Optional<Path> hostWorkspace) {

    public SandboxSpec {
        closure = List.copyOf(closure);
        command = List.copyOf(command);
        env = Map.copyOf(env);
        hostWorkspace = hostWorkspace == null ? Optional.empty() : hostWorkspace;
    }

    /** A run with a fresh, empty {@code /workspace}. */
    public SandboxSpec(String environmentPath, List<String> closure, String codeFileName, byte[] code,
            List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network) {
        this(environmentPath, closure, codeFileName, code, command, env, stdin, limits, network, Optional.empty());
    }
}

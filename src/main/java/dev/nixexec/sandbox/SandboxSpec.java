package dev.nixexec.sandbox;

import java.util.List;
import java.util.Map;

/**
 * One run: the environment's store path and closure, the code file, the interpreter invocation
 * (relative to {@code <env>/bin}), validated user variables, stdin and limits.
 */
public record SandboxSpec(String environmentPath, List<String> closure, String codeFileName, byte[] code,
        List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network) {

    public SandboxSpec {
        closure = List.copyOf(closure);
        command = List.copyOf(command);
        env = Map.copyOf(env);
    }
}

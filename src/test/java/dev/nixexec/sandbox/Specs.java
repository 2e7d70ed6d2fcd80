package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Tests' shorthands for {@link SandboxSpec}s without arguments or host mounts. */
public final class Specs {

    private Specs() {
    }

    /** A run with a fresh, empty {@code /workspace}. */
    public static SandboxSpec fresh(String environmentPath, List<String> closure, String codeFileName, byte[] code,
            List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network) {
        return new SandboxSpec(environmentPath, closure, codeFileName, code, command, env, stdin, limits, network,
                Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of());
    }

    /** A run with a workspace materialised in {@code workspace}. */
    public static SandboxSpec materialised(String environmentPath, List<String> closure, String codeFileName,
            byte[] code, List<String> command, Map<String, String> env, byte[] stdin, Limits limits, boolean network,
            Path workspace) {
        return new SandboxSpec(environmentPath, closure, codeFileName, code, command, env, stdin, limits, network,
                Optional.empty(), Optional.of(workspace), Optional.empty(), List.of(), List.of());
    }
}

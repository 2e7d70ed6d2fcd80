package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Tests' shorthands for {@link SandboxSpec}s without arguments or host mounts, and a job's whole bubblewrap argv. */
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

    /** {@code bwrap}, the options of a job's run, {@code --} and its command. */
    public static List<String> bwrapArgv(Path bwrap, SandboxSpec spec, Path codeDir, Path etcDir, StoreMount store) {
        List<String> argv = new ArrayList<>(List.of(bwrap.toString()));
        argv.addAll(BwrapArguments.options(spec, codeDir, etcDir, store, true));
        argv.add("--");
        argv.addAll(BwrapArguments.command(spec));
        return argv;
    }
}

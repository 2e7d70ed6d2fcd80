package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sandbox-exec argv and environment for one run. The argv is a list (no shell) and {@code --}
 * separates sandbox-exec's options from the command. sandbox-exec has no option to set variables:
 * the environment is the child's own, so the caller clears ProcessBuilder's and puts exactly
 * {@link #environment} in it; sandbox-exec passes it on through exec.
 */
public final class SeatbeltArguments {

    public static final Path SANDBOX_EXEC = Path.of("/usr/bin/sandbox-exec");

    private SeatbeltArguments() {
    }

    public static List<String> build(SandboxSpec spec, SeatbeltProfile profile, SeatbeltProfile.JobDirectories dirs) {
        List<String> a = new ArrayList<>();
        a.add(SANDBOX_EXEC.toString());
        a.addAll(List.of("-p", profile.text()));
        a.addAll(profile.parameterOptions());
        a.add("--");
        a.add(spec.environmentPath() + "/bin/" + spec.command().get(0));
        a.addAll(spec.command().subList(1, spec.command().size()));
        a.add(dirs.code().resolve(spec.codeFileName()).toString());
        a.addAll(spec.args());
        return a;
    }

    /** As on Linux ({@link BwrapArguments#environment}), with HOME and TMPDIR at the job's host directories. */
    static Map<String, String> environment(SandboxSpec spec, SeatbeltProfile.JobDirectories dirs) {
        Map<String, String> env = BwrapArguments.environment(spec);
        env.put("HOME", dirs.workspace().toString());
        env.put("TMPDIR", dirs.tmp().toString());
        // no Ruby prelude beside the code here: the caller's RUBYOPT only, and Ruby buffers as it does
        env.computeIfPresent("RUBYOPT", (name, value) -> spec.env().get(name));
        return env;
    }
}

package dev.nixexec.sandbox;

import com.pty4j.PtyProcess;
import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Interactive shells in the jobs' sandbox: the same launcher chain (cgroup, rlimits, per-run uid),
 * the same bubblewrap options and seccomp filter, with the environment's bash on a pseudo-terminal
 * instead of a program on pipes. The one difference in bubblewrap's options: no
 * {@code --new-session}, so that the terminal, which only this service holds the other side of,
 * stays the shell's controlling terminal (job control, Ctrl-C, window size changes); TIOCSTI and
 * TIOCLINUX stay refused by the seccomp filter (docs/security.md, "The attached terminal").
 */
@ApplicationScoped
public class BwrapShells {

    /** The shell's start-up file, in the read-only {@code /code}: a prompt, nothing else. */
    static final String RC_FILE = "shellrc";
    static final String RC = "PS1='sandbox:\\w\\$ '\n";
    /** What the shell's programs are told the terminal is, unless the session's env says otherwise. */
    static final String TERM = "xterm-256color";

    private final NixExecConfig config;
    private final LauncherPool launchers;
    private final StoreViews storeViews;
    private final UserModeNetwork network;

    public BwrapShells(NixExecConfig config, LauncherPool launchers, StoreViews storeViews, UserModeNetwork network) {
        this.config = config;
        this.launchers = launchers;
        this.storeViews = storeViews;
        this.network = network;
    }

    /** Why shells cannot start here, if they cannot: as for jobs. */
    public Optional<String> unavailableReason() {
        return launchers.unavailableReason(config.executor().bwrapCommand());
    }

    /**
     * Starts the environment's bash in the spec's sandbox (its environment, env, network, mounts and
     * limits; its code and command are not used), on a terminal of this size. The shell's wall-clock
     * limit is {@code spec.limits().timeout()}.
     */
    public Shell start(SandboxSpec spec, TerminalSize size, Duration idleTimeout, ShellOutput output)
            throws IOException {
        String reason = unavailableReason().orElse(null);
        if (reason != null) {
            throw new SandboxException(reason);
        }
        // held while the shell lives: its view is not removed under it
        StoreViews.Lease store = storeViews.lease(spec);
        Launcher launcher;
        try {
            launcher = launchers.startOnTerminal(spec.limits(), size, files -> writeRun(files, spec, store.mount()));
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
        UserModeNetwork.Attached[] attachedNetwork = new UserModeNetwork.Attached[1];
        java.util.function.Consumer<Launcher> release = l -> {
            try {
                if (attachedNetwork[0] != null) {
                    attachedNetwork[0].close();
                }
                launchers.release(l);
            } finally {
                store.close();
            }
        };
        try {
            launchers.passTerminalGate(launcher, SeccompFilter.program(), () -> {
                if (spec.network()) {
                    try {
                        attachedNetwork[0] = network.attach(launcher.process().pid(),
                                launcher.runDir().resolve("network.log"), launcher.process()::isAlive);
                    } catch (SandboxException e) {
                        if (launcher.process().isAlive()) {
                            throw e;
                        }
                        // bubblewrap ended while the network was being made: what it said is why, not the network's step
                        throw new SandboxException("the sandbox exited before its shell started: " + new String(
                                LauncherPool.launcherErrors(launcher.process()).readAllBytes(), StandardCharsets.UTF_8).strip());
                    }
                }
            });
        } catch (IOException | RuntimeException e) {
            release.accept(launcher);
            throw e;
        }
        Shell shell = new Shell((PtyProcess) launcher.process(), launcher, idleTimeout, spec.limits().timeout(),
                output, release);
        shell.start();
        return shell;
    }

    /** The bubblewrap options and command (as {@link BwrapSandbox#writeRun}), the start-up file and the CPU limits. */
    private void writeRun(LauncherFiles files, SandboxSpec spec, StoreMount store) throws IOException {
        if (spec.runOwned().isPresent()) {
            BwrapSandbox.giveTo(spec.runOwned().get(), files.uid());
        }
        BwrapSandbox.writeArguments(files, bwrapOptions(spec, files, store), List.of(spec.environmentPath()
                + "/bin/bash", "--noprofile", "--rcfile", BwrapArguments.CODE_DIR + "/" + RC_FILE, "-i"));
        long cpu = spec.limits().effectiveCpuSeconds();
        var rc = files.codeDir().resolve(RC_FILE);
        Files.writeString(rc, RC);
        // soft limit: SIGXCPU; hard limit one second later: SIGKILL, as for a job
        Files.writeString(files.limitsFile(), cpu + " " + (cpu + 1) + "\n", StandardCharsets.US_ASCII);
        for (var file : List.of(rc, files.optionsFile(), files.commandFile(), files.limitsFile())) {
            LauncherPool.owned(file, files.uid());
        }
    }

    private static List<String> bwrapOptions(SandboxSpec spec, LauncherFiles files, StoreMount store) {
        List<String> options = new ArrayList<>(
                BwrapArguments.options(spec, files.codeDir(), files.etcDir(), store, false));
        if (!spec.env().containsKey("TERM")) {
            options.addAll(List.of("--setenv", "TERM", TERM));
        }
        return options;
    }
}

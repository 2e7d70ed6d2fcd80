package dev.nixexec.sandbox;

import dev.nixexec.config.ExecutableLookup;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.logging.JobLogContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import org.jboss.logging.Logger;

/**
 * Starts sandbox launchers ahead of demand. Joining a cgroup costs an RCU grace period (~5 ms per
 * hierarchy here) and each exec in the chain about 1 ms; a waiting launcher has paid all of that
 * before its run arrives. Runs with other limits than the configured ones get a launcher started on
 * the spot.
 *
 * <p>The chain, every step a fixed argv: {@code sh JOIN} (as the service: join the cgroup) →
 * {@code prlimit} → {@code setpriv} (root only: drop to the run's uid) → {@code sh WAIT} (make the
 * run's gate, a FIFO, and hold it open for reading as fd 4; then wait: read the CPU limits line,
 * lower both CPU limits to the run's, open the options file as fd 3, read the command words) →
 * {@code bwrap --args 3 -- command} (the options hold {@code --seccomp 4}). The scripts are
 * constants; paths and words reach them only as argv or as lines read into quoted variables, never
 * as shell text.
 *
 * <p>The gate: bubblewrap reads its seccomp program from fd 4 only after it has set up the
 * namespaces and mounts, right before it starts the code. The run writes the program into the gate
 * once it may start (see {@link RunGate}), so that set-up overlaps with recording the start. A gate
 * closed with nothing written, by the run or by a service that died, gives bubblewrap an empty
 * program, which it refuses: no code ever starts without the run's word.
 */
@ApplicationScoped
public class LauncherPool {

    private static final Logger LOG = Logger.getLogger(LauncherPool.class);
    /** About what storing a run's result and answering its caller take, on a small machine. */
    private static final Duration AFTER_RUN = Duration.ofMillis(30);

    /** The file in a terminal's run directory with its CPU limits line. */
    static final String TERMINAL_LIMITS = "limits";
    static final String JOIN_CGROUP =
            "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit 125; shift; done; shift; exec \"$@\"";
    // fd 5 only lets fd 4 open without waiting for a writer; once closed, the reader sees
    // the end of the program when the run's writer closes the gate
    static final String WAIT_FOR_RUN = waitScript("exec 5<> \"$3\" 4< \"$3\" 5<&- || exit 125",
            "read -r cpu hard || exit 125");
    /**
     * A terminal's launcher is started with its run already written and has nothing to wait for
     * but its gate, which it opens only once the run holds the writing end (see
     * {@link #passTerminalGate}); its stdin is the terminal, so it reads the CPU limits from the run
     * directory (its working directory) instead.
     */
    static final String WAIT_ON_TERMINAL = waitScript("exec 4< \"$3\" || exit 125",
            "read -r cpu hard < " + TERMINAL_LIMITS + " || exit 125");

    private static String waitScript(String openGate, String readCpuLimits) {
        return String.join("\n",
            "\"$4\" -m 600 \"$3\" || exit 125",
            openGate,
            readCpuLimits,
            "ulimit -S -t \"$cpu\" && ulimit -H -t \"$hard\" || exit 125",
            "exec 3< \"$1\" || exit 125",
            "command=$2",
            "shift 4",
            // the shell exports the run directory as PWD; bubblewrap's init inside would show it in /proc/1/environ
            "unset PWD",
            "set -- \"$@\" --args 3 --",
            "while IFS= read -r word; do set -- \"$@\" \"$word\"; done < \"$command\"",
            "exec \"$@\"");
    }

    /** The fd the waiting shell holds the gate on, for bubblewrap's {@code --seccomp}. */
    static final int SECCOMP_FD = 4;
    /** A FIFO takes a write of at most this many bytes whole. */
    private static final int PIPE_BUF = 4096;
    /** How long a launcher started for one run may take to make its gate. */
    private static final Duration GATE_WAIT = Duration.ofSeconds(10);

    private final StatePaths paths;
    private final Cgroups cgroups;
    private final HostUids uids;
    private final int warm;
    private final boolean allowWithoutCgroups;
    private final long cpuCeilingSeconds;
    private final LauncherKey defaultKey;
    private final Optional<Path> bwrap;
    private final Optional<Path> prlimit;
    private final Optional<Path> setpriv;
    private final Optional<Path> mkfifo;
    private final Optional<Path> sh;
    private final SharedEtc etc;
    private final ConcurrentLinkedQueue<Launcher> idle = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean refilling = new AtomicBoolean();
    private final Set<Thread> tidying = ConcurrentHashMap.newKeySet();
    /**
     * The one thread every launcher is started from, for the pool's life: bubblewrap's
     * {@code --die-with-parent} is the kernel's parent-death signal, which follows the thread that
     * started the process, not the service; started from a virtual thread, whose carrier the
     * scheduler retires after 30 s idle, a run was killed then.
     */
    private final ExecutorService parent = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("sandbox-launcher-parent").factory());
    private volatile boolean closed;

    public LauncherPool(NixExecConfig config, StatePaths paths, Cgroups cgroups, HostUids uids) {
        this.paths = paths;
        this.cgroups = cgroups;
        this.uids = uids;
        NixExecConfig.Sandbox sandbox = config.sandbox();
        this.warm = sandbox.warmLaunchers();
        this.allowWithoutCgroups = sandbox.allowWithoutCgroups();
        this.cpuCeilingSeconds = Math.max(sandbox.cpuSeconds(), sandbox.maxTimeout().toSeconds() + 1);
        this.defaultKey = new LauncherKey(sandbox.memoryBytes(), sandbox.maxProcesses(), sandbox.maxFileBytes(),
                cpuCeilingSeconds);
        this.bwrap = ExecutableLookup.find(config.executor().bwrapCommand());
        this.prlimit = ExecutableLookup.find("prlimit");
        this.setpriv = ExecutableLookup.find("setpriv");
        this.mkfifo = ExecutableLookup.find("mkfifo");
        this.sh = ExecutableLookup.find("/bin/sh");
        this.etc = new SharedEtc(paths, BwrapArguments.etcFiles(sandbox.networkDns()));
    }

    /** Why launchers cannot start here, if they cannot. */
    Optional<String> unavailableReason(String bwrapName) {
        if (bwrap.isEmpty()) {
            return Optional.of("bubblewrap (" + bwrapName + ") is not installed or not on PATH (on Debian: apt-get install bubblewrap)");
        }
        if (prlimit.isEmpty()) {
            return Optional.of("prlimit (util-linux) is not on PATH");
        }
        if (uids.switching() && setpriv.isEmpty()) {
            return Optional.of("setpriv (util-linux) is not on PATH");
        }
        if (mkfifo.isEmpty()) {
            return Optional.of("mkfifo (coreutils) is not on PATH");
        }
        if (sh.isEmpty()) {
            return Optional.of("/bin/sh is missing");
        }
        return limitsRefusal();
    }

    /**
     * Why runs' memory and processes cannot be bounded here, unless the operator opted out: without
     * a memory cgroup, RLIMIT_AS does not count tmpfs pages or sum over a run's processes; without a
     * pids cgroup or a per-run uid (for RLIMIT_NPROC), nothing bounds the number of processes.
     */
    Optional<String> limitsRefusal() {
        if (allowWithoutCgroups || cgroups.available() && (cgroups.limitsProcesses() || uids.switching())) {
            return Optional.empty();
        }
        return Optional.of((cgroups.available() ? "no pids cgroup controller and no per-run uid (the service is not root)"
                : "no per-run cgroup can be made (" + cgroups.describe() + ")")
                + ": memory and process limits cannot be enforced. Give the service a cgroup subtree (cgroup v1 as root, "
                + "or a delegated cgroup v2 subtree: systemd Delegate=yes), or set nixexec.sandbox.allow-without-cgroups=true "
                + "to run with rlimits only");
    }

    /** A launcher for these limits: a waiting one when there is one, else one started now. */
    Launcher take(Limits limits) throws IOException {
        LauncherKey key = LauncherKey.of(limits, cpuCeilingSeconds);
        Launcher launcher = null;
        if (key.equals(defaultKey)) {
            for (Launcher candidate = idle.poll(); candidate != null; candidate = idle.poll()) {
                if (candidate.process().isAlive()) {
                    launcher = candidate;
                    break;
                }
                LOG.warnf("a waiting sandbox launcher died: exit %d", candidate.process().exitValue());
                release(candidate);
            }
        }
        return launcher != null ? launcher : start(key);
    }

    /**
     * Opens the launcher's gate for writing, once the launcher holds it open for reading (a launcher
     * started for this run may still be on its way there): what is written then stays until
     * bubblewrap reads it, even if this side closes first. Read and write, so that opening never
     * waits for a reader.
     */
    FileChannel gate(Launcher launcher) throws IOException {
        awaitLauncher(launcher, "open its gate", () -> holdsGate(launcher));
        return FileChannel.open(launcher.gateFile(), StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Passes the seccomp program through a terminal launcher's gate. The launcher's open of the gate
     * waits for a writer, and once it goes through, the launcher goes straight on to bubblewrap,
     * which may close its copy before this side could see it held (as {@link #gate} looks): so the
     * writing end is opened as soon as the gate exists, the program written, and the end kept open
     * until the pipe is empty (bubblewrap read it all), so that no byte is lost with a pipe nobody
     * holds. Closing it then gives bubblewrap the end of the program.
     */
    void passTerminalGate(Launcher launcher, byte[] program, AtGate atGate) throws IOException {
        awaitLauncher(launcher, "make its gate", () -> Files.exists(launcher.gateFile(), LinkOption.NOFOLLOW_LINKS));
        try (FileChannel gate = FileChannel.open(launcher.gateFile(), StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
                // a reader that never reads: only asks how much is still in the pipe (FIONREAD)
                java.io.FileInputStream pipe = new java.io.FileInputStream(launcher.gateFile().toFile())) {
            // the launcher goes on to bubblewrap once the gate is open, and bubblewrap waits for the program
            atGate.run();
            if (program.length > PIPE_BUF || gate.write(java.nio.ByteBuffer.wrap(program)) != program.length) {
                throw new SandboxException("the seccomp program did not go through the gate in one write");
            }
            awaitLauncher(launcher, "read its seccomp program", () -> {
                try {
                    return pipe.available() == 0;
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }

    private void awaitLauncher(Launcher launcher, String step, java.util.function.BooleanSupplier done)
            throws IOException {
        long deadline = System.nanoTime() + GATE_WAIT.toNanos();
        while (!done.getAsBoolean()) {
            if (!launcher.process().isAlive() || System.nanoTime() > deadline) {
                throw new SandboxException("the sandbox launcher did not " + step + ": " + (launcher.process().isAlive()
                        ? "still starting after " + GATE_WAIT.toSeconds() + "s"
                        : new String(launcherErrors(launcher.process()).readAllBytes(), StandardCharsets.UTF_8).strip()));
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted while waiting for the sandbox launcher");
            }
        }
    }

    /** Where a launcher that died wrote why: its stderr, or its terminal. */
    static java.io.InputStream launcherErrors(Process process) {
        return process instanceof PtyProcess ? process.getInputStream() : process.getErrorStream();
    }

    private static boolean holdsGate(Launcher launcher) {
        Path held = Path.of("/proc", Long.toString(launcher.process().pid()), "fd", Integer.toString(SECCOMP_FD));
        try {
            return Files.isSameFile(held, launcher.gateFile());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Kills whatever is left of the launcher's run at once; its cgroup, directory and uid go in
     * the background, so that the run's result does not wait for them (a cgroup can take a few
     * milliseconds to let go of its last exiting process).
     */
    void release(Launcher launcher) {
        kill(launcher);
        Thread tidy = Thread.ofVirtual().name("launcher-tidy").unstarted(() -> {
            try {
                tidy(launcher);
            } finally {
                tidying.remove(Thread.currentThread());
            }
            // Refilled after a run rather than when it starts, so the new launcher's start-up does
            // not compete with the run for CPU; and, while another launcher still waits, a moment
            // later, so that it does not compete with storing the run's result and answering its caller.
            refillLater(idle.isEmpty() ? Duration.ZERO : AFTER_RUN);
        });
        tidying.add(tidy);
        tidy.start();
    }

    @PreDestroy
    public void close() {
        closed = true;
        for (Launcher launcher = idle.poll(); launcher != null; launcher = idle.poll()) {
            kill(launcher);
            tidy(launcher);
        }
        etc.remove();
        // its end ends whatever bubblewrap is left, as the service's would
        parent.shutdown();
        for (Thread tidy : tidying) {
            try {
                tidy.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        paths.releaseJobsDir();
    }

    private static void kill(Launcher launcher) {
        if (launcher.process().isAlive()) {
            launcher.process().destroyForcibly();
        }
        launcher.cgroup().ifPresent(JobCgroup::killAll);
        if (launcher.cgroup().isEmpty()) {
            // Without a cgroup, code that untied itself from bubblewrap is still found by its uid.
            launcher.uid().ifPresent(HostUids::killProcessesOf);
        }
    }

    private void tidy(Launcher launcher) {
        boolean noProcessLeft = launcher.cgroup().map(JobCgroup::remove).orElse(false);
        ChildStreams.deleteTree(launcher.runDir());
        uids.release(launcher.uid(), noProcessLeft);
    }

    private void refillLater(Duration delay) {
        if (warm <= 0 || closed || !refilling.compareAndSet(false, true)) {
            return;
        }
        // started from a run's clean-up, but it belongs to no job: its lines carry no job's id
        Thread.ofVirtual().name("launcher-refill").start(JobLogContext.detached(() -> {
            try {
                Thread.sleep(delay);
                while (!closed && idle.size() < warm) {
                    idle.add(start(defaultKey));
                }
            } catch (IOException | RuntimeException e) {
                LOG.warnf("cannot start a waiting sandbox launcher: %s", e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                refilling.set(false);
            }
            if (closed) {
                close();
            }
        }));
    }

    /** What is done while a terminal's bubblewrap waits at the gate, before its program goes through. */
    @FunctionalInterface
    interface AtGate {
        void run() throws IOException;
    }

    /** Writes a terminal's run (options, command, code, {@value #TERMINAL_LIMITS}) before its launcher starts. */
    @FunctionalInterface
    interface TerminalRun {
        void write(LauncherFiles files) throws IOException;
    }

    /**
     * A launcher on a new pseudo-terminal, started now and never pooled: its stdin, stdout and
     * stderr are the terminal's side, and it leads a session of its own whose controlling terminal
     * that is (pty4j's spawn: setsid, TIOCSCTTY). The terminal's other side is held by this
     * service only. The run is written before it starts: it waits for nothing but its gate.
     */
    Launcher startOnTerminal(Limits limits, TerminalSize size, TerminalRun run) throws IOException {
        return start(LauncherKey.of(limits, cpuCeilingSeconds), Optional.of(new Terminal(size, run)));
    }

    private record Terminal(TerminalSize size, TerminalRun run) {
    }

    private Launcher start(LauncherKey key) throws IOException {
        return start(key, Optional.empty());
    }

    private Launcher start(LauncherKey key, Optional<Terminal> terminal) throws IOException {
        OptionalInt uid = uids.acquire();
        String name = UUID.randomUUID().toString();
        Path runDir = paths.jobsDir().resolve(name);
        Optional<JobCgroup> cgroup = Optional.empty();
        try {
            Path etcDir = etc.dir();
            prepareRunDir(runDir, uid);
            if (terminal.isPresent()) {
                terminal.get().run().write(new LauncherFiles(runDir, etcDir, uid));
            }
            cgroup = cgroups.create("run-" + name, key.memoryBytes(), key.maxProcesses());
            List<String> argv = new ArrayList<>();
            cgroup.ifPresent(c -> {
                argv.addAll(List.of(sh.orElseThrow().toString(), "-c", JOIN_CGROUP, "nix-exec-join"));
                c.procsFiles().forEach(f -> argv.add(f.toString()));
                argv.add("--");
            });
            argv.addAll(List.of(prlimit.orElseThrow().toString(),
                    "--cpu=" + key.cpuCeilingSeconds() + ":" + (key.cpuCeilingSeconds() + 1),
                    "--fsize=" + key.maxFileBytes(), "--core=0", "--nofile=1024"));
            if (uid.isPresent()) {
                // RLIMIT_NPROC counts per uid, so it is a per-run limit only with a per-run uid. Which
                // limit stopped a fork only the pids cgroup tells (pids.events), and the kernel checks
                // the rlimit first: with a pids cgroup the rlimit is set above it, a second bound only.
                boolean cgroupTells = cgroup.isPresent() && cgroups.limitsProcesses();
                argv.add("--nproc=" + (cgroupTells ? 2L * key.maxProcesses() : key.maxProcesses()));
            }
            if (cgroup.isEmpty()) {
                // Address space and data segment are poor stand-ins for memory (per process, tmpfs
                // pages not counted), used only when no cgroup can be had.
                argv.add("--as=" + key.memoryBytes());
                argv.add("--data=" + key.memoryBytes());
            }
            argv.add("--");
            uid.ifPresent(u -> argv.addAll(List.of(setpriv.orElseThrow().toString(), "--reuid=" + u, "--regid=" + u,
                    "--clear-groups", "--")));
            argv.addAll(List.of(sh.orElseThrow().toString(), "-c", terminal.isPresent() ? WAIT_ON_TERMINAL : WAIT_FOR_RUN,
                    "nix-exec-wait", runDir.resolve("options").toString(), runDir.resolve("command").toString(),
                    runDir.resolve("gate").toString(), mkfifo.orElseThrow().toString(), bwrap.orElseThrow().toString()));
            if (terminal.isPresent()) {
                TerminalSize size = terminal.get().size();
                // an empty environment, as below; pty4j's spawn closes every other descriptor, as the JDK's does
                PtyProcessBuilder builder = new PtyProcessBuilder(argv.toArray(String[]::new)).setEnvironment(Map.of())
                        .setDirectory(runDir.toString()).setInitialColumns(size.columns()).setInitialRows(size.rows())
                        .setRedirectErrorStream(true);
                return new Launcher(key, startFromParent(builder::start), uid, cgroup, runDir, etcDir);
            }
            ProcessBuilder builder = new ProcessBuilder(argv).directory(runDir.toFile());
            builder.environment().clear();
            return new Launcher(key, startFromParent(builder::start), uid, cgroup, runDir, etcDir);
        } catch (IOException | RuntimeException e) {
            boolean noProcessLeft = cgroup.map(JobCgroup::remove).orElse(false);
            ChildStreams.deleteTree(runDir);
            uids.release(uid, noProcessLeft);
            throw e;
        }
    }

    /** Starts a process from {@link #parent}; waits for it even if interrupted, so that none is started unseen. */
    private Process startFromParent(java.util.concurrent.Callable<? extends Process> start) throws IOException {
        Future<? extends Process> started = parent.submit(start);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return started.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void prepareRunDir(Path runDir, OptionalInt uid) throws IOException {
        Files.createDirectory(runDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path prelude = Files.writeString(Files.createDirectory(runDir.resolve("code"))
                .resolve(BwrapArguments.RUBY_PRELUDE_FILE), "STDOUT.sync = true\n");
        for (Path p : List.of(runDir, prelude.getParent(), prelude)) {
            owned(p, uid);
        }
    }

    /** Gives a path in a run directory to the run's uid, so the unprivileged launcher can read it. */
    static void owned(Path path, OptionalInt uid) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(Files.isDirectory(path) ? "rwx------" : "r--------"));
        if (uid.isPresent()) {
            Files.setAttribute(path, "unix:uid", uid.getAsInt());
            Files.setAttribute(path, "unix:gid", uid.getAsInt());
        }
    }
}

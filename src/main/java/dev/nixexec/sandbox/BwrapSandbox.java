package dev.nixexec.sandbox;

import dev.nixexec.config.NixExecConfig;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Linux sandbox: bubblewrap in fresh namespaces, entered through a {@link Launcher} that already
 * joined the run's cgroup, set the rlimits and (when the service is root) dropped to a per-run uid.
 */
@ApplicationScoped
@Typed(BwrapSandbox.class)
public class BwrapSandbox implements Sandbox {

    private static final int SIGXCPU = 24;
    private static final int SIGXFSZ = 25;
    private static final int PIPE_BUF = 4096;

    private final NixExecConfig config;
    private final LauncherPool launchers;
    private final StoreViews storeViews;
    private final UserModeNetwork network;

    public BwrapSandbox(NixExecConfig config, LauncherPool launchers, StoreViews storeViews, UserModeNetwork network) {
        this.config = config;
        this.launchers = launchers;
        this.storeViews = storeViews;
        this.network = network;
    }

    @Override
    public Optional<String> unavailableReason() {
        return launchers.unavailableReason(config.executor().bwrapCommand());
    }

    @Override
    public Optional<String> networkUnavailableReason() {
        return network.unavailableReason();
    }

    @Override
    public Multi<SandboxEvent> run(SandboxSpec spec, RunGate gate) {
        return ChildStreams.events((emitter, killer, cancelled) -> runBlocking(spec, gate, emitter, killer, cancelled));
    }

    private SandboxResult runBlocking(SandboxSpec spec, RunGate gate, MultiEmitter<? super SandboxEvent> emitter,
            AtomicReference<Runnable> killer, AtomicBoolean cancelled) throws IOException, InterruptedException {
        String reason = unavailableReason().orElse(null);
        if (reason != null) {
            throw new SandboxException(reason);
        }
        // first, so that a closure's first run prepares its view before its launcher's clock starts
        StoreViews.Lease store = storeViews.lease(spec);
        Launcher launcher;
        try {
            launcher = launchers.take(spec.limits());
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
        UserModeNetwork.Attached attachedNetwork = null;
        try (store; FileChannel gateChannel = launchers.gate(launcher)) {
            if (spec.runOwned().isPresent()) {
                giveTo(spec.runOwned().get(), launcher.uid());
            }
            Process process = launcher.process();
            killer.set(process::destroyForcibly);
            if (cancelled.get()) {
                process.destroyForcibly();
            }
            writeRun(launcher, spec, store.mount());
            if (!process.isAlive()) {
                throw new SandboxException("the sandbox launcher exited early: "
                        + new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip());
            }
            emitter.emit(new SandboxEvent.Started(process.pid()));

            long maxOutput = spec.limits().maxOutputBytes();
            OutputCapture stdout = new OutputCapture(maxOutput);
            OutputCapture stderr = new OutputCapture(maxOutput);
            long cpu = spec.limits().effectiveCpuSeconds();
            // soft limit: SIGXCPU; hard limit one second later: SIGKILL, even for code that ignores SIGXCPU
            byte[] go = (cpu + " " + (cpu + 1) + "\n").getBytes(StandardCharsets.US_ASCII);
            Thread stdinWriter = Thread.ofVirtual().start(
                    () -> ChildStreams.feed(process.getOutputStream(), go, spec.stdin()));
            Thread outReader = Thread.ofVirtual().start(
                    () -> ChildStreams.pump(process.getInputStream(), stdout, StreamName.STDOUT, maxOutput, emitter));
            Thread errReader = Thread.ofVirtual().start(
                    () -> ChildStreams.pump(process.getErrorStream(), stderr, StreamName.STDERR, maxOutput, emitter));

            // bubblewrap sets up the sandbox meanwhile, and waits at the gate
            if (spec.network()) {
                try {
                    attachedNetwork = network.attach(process.pid(), launcher.runDir().resolve("network.log"),
                            process::isAlive);
                } catch (SandboxException e) {
                    if (process.isAlive()) {
                        throw e;
                    }
                    // bubblewrap ended while the network was being made: what it said is why, not the network's step
                    errReader.join(Duration.ofSeconds(5));
                    throw new SandboxException("the sandbox exited before its run started (exit " + process.exitValue()
                            + "): " + stderr.result().text().strip());
                }
            }
            if (!gate.open()) {
                gateChannel.close();
                process.destroyForcibly();
                stdinWriter.interrupt();
                throw new RunCalledOff();
            }
            byte[] program = SeccompFilter.program();
            // a FIFO takes a write of at most PIPE_BUF bytes whole: the program arrives complete or not at all
            if (program.length > PIPE_BUF || gateChannel.write(ByteBuffer.wrap(program)) != program.length) {
                throw new SandboxException("the seccomp program did not go through the gate in one write");
            }
            // the launcher's and bubblewrap's set-up before this point is not the code's CPU time
            Optional<Long> cpuAtStart = launcher.cgroup().flatMap(JobCgroup::cpuNanos);
            gateChannel.close();
            long started = System.nanoTime();

            Duration timeout = spec.limits().timeout();
            boolean exited = process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            launcher.cgroup().ifPresent(JobCgroup::killAll);
            process.waitFor();
            long durationMs = (System.nanoTime() - started) / 1_000_000;
            outReader.join(Duration.ofSeconds(5));
            errReader.join(Duration.ofSeconds(5));
            stdinWriter.interrupt();

            int exitCode = process.exitValue();
            Optional<Integer> signal = ChildStreams.signalOf(exitCode);
            Optional<LimitHit> limitHit = launcher.cgroup().flatMap(JobCgroup::limitHit);
            if (limitHit.isEmpty() && signal.isPresent()) {
                limitHit = switch (signal.get()) {
                    case SIGXCPU -> Optional.of(LimitHit.CPU_TIME);
                    case SIGXFSZ -> Optional.of(LimitHit.FILE_SIZE);
                    default -> Optional.empty();
                };
            }
            boolean timedOut = !exited && !cancelled.get();
            // read before the launcher is released: its cgroup goes with it
            ResourceUsage usage = launcher.cgroup().map(c -> c.usage(cpuAtStart)).orElse(ResourceUsage.NONE);
            return new SandboxResult(exitCode, signal, timedOut, timedOut ? Optional.of(LimitHit.TIMEOUT) : limitHit,
                    durationMs, stdout.result(), stderr.result(), usage);
        } finally {
            if (attachedNetwork != null) {
                attachedNetwork.close();
            }
            launchers.release(launcher);
        }
    }

    /**
     * Makes a materialised workspace the run's (when runs switch uid): the worker wrote it as the
     * service, and only the run's uid may write there. The worker made every entry, so there is
     * no link to follow; links are not followed anyway.
     */
    static void giveTo(java.nio.file.Path dir, java.util.OptionalInt uid) throws IOException {
        if (uid.isEmpty()) {
            return;
        }
        try (var all = Files.walk(dir)) {
            for (var path : all.toList()) {
                Files.setAttribute(path, "unix:uid", uid.getAsInt(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(path, "unix:gid", uid.getAsInt(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    /**
     * Writes the code and the bubblewrap options (NUL-separated, read by bwrap from fd 3; the first
     * is the seccomp program, which comes through the gate the launcher holds as fd 4) and command
     * (one word per line, read by the launcher's shell into quoted variables).
     */
    void writeRun(Launcher launcher, SandboxSpec spec, StoreMount store) throws IOException {
        LauncherFiles files = launcher.files();
        writeArguments(files, BwrapArguments.options(spec, files.codeDir(), files.etcDir(), store, true),
                BwrapArguments.command(spec));
        var code = files.codeDir().resolve(spec.codeFileName());
        Files.write(code, spec.code());
        for (var file : List.of(code, files.optionsFile(), files.commandFile())) {
            LauncherPool.owned(file, launcher.uid());
        }
    }

    /** The options and command files of {@link #writeRun}: refused if a word holds its separator. */
    static void writeArguments(LauncherFiles files, List<String> options, List<String> command) throws IOException {
        List<String> all = new ArrayList<>(List.of("--seccomp", Integer.toString(LauncherPool.SECCOMP_FD)));
        all.addAll(options);
        if (all.stream().anyMatch(o -> o.indexOf('\0') >= 0) || command.stream().anyMatch(w -> w.contains("\n"))) {
            throw new SandboxException("sandbox arguments contain a NUL or newline");
        }
        Files.writeString(files.optionsFile(), String.join("\0", all) + "\0");
        Files.writeString(files.commandFile(), String.join("\n", command) + "\n");
    }
}

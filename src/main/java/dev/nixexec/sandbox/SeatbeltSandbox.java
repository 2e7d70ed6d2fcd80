package dev.nixexec.sandbox;

import dev.nixexec.config.StatePaths;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * macOS sandbox: sandbox-exec with a per-run Seatbelt profile ({@link SeatbeltProfile}). macOS has
 * no namespaces, cgroups or prlimit: the wall timeout and output bound are enforced here, memory,
 * CPU time, file size and process count are not (docs/sandbox-macos.md).
 */
@ApplicationScoped
@Typed(SeatbeltSandbox.class)
public class SeatbeltSandbox implements Sandbox {

    private static final Logger LOG = Logger.getLogger(SeatbeltSandbox.class);
    /** How often the run's process tree is recorded, so processes orphaned by their parent are still killed. */
    private static final Duration TREE_SAMPLE_INTERVAL = Duration.ofMillis(100);

    private final StatePaths paths;

    public SeatbeltSandbox(StatePaths paths) {
        this.paths = paths;
    }

    @Override
    public Optional<String> unavailableReason() {
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase(Locale.ROOT).contains("mac")) {
            return Optional.of("the Seatbelt sandbox needs macOS; this is " + os);
        }
        if (!Files.isExecutable(SeatbeltArguments.SANDBOX_EXEC)) {
            return Optional.of(SeatbeltArguments.SANDBOX_EXEC + " is missing");
        }
        return Optional.empty();
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
        if (!spec.hostMounts().isEmpty()) {
            // the profile grants the job's own directories only; a host path would be denied inside
            throw new SandboxException("files and writable_files are not supported by the macOS sandbox");
        }
        Path jobDir = paths.jobsDir().resolve(UUID.randomUUID().toString());
        ProcessTree tree = null;
        try {
            SeatbeltProfile.JobDirectories dirs = prepareJobDir(jobDir, spec);
            SeatbeltProfile profile = SeatbeltProfile.of(spec, dirs);
            LOG.debugf("Seatbelt profile for %s, parameters %s:%n%s", jobDir, profile.parameters(), profile.text());
            ProcessBuilder builder = new ProcessBuilder(SeatbeltArguments.build(spec, profile, dirs))
                    .directory(dirs.workspace().toFile());
            builder.environment().clear();
            builder.environment().putAll(SeatbeltArguments.environment(spec, dirs));
            // sandbox-exec starts the code at once, so here the gate is asked before it starts
            if (!gate.open()) {
                throw new RunCalledOff();
            }
            long started = System.nanoTime();
            Process process = builder.start();
            tree = new ProcessTree(process);
            killer.set(tree::killAll);
            if (cancelled.get()) {
                tree.killAll();
            }
            emitter.emit(new SandboxEvent.Started(process.pid()));

            long maxOutput = spec.limits().maxOutputBytes();
            OutputCapture stdout = new OutputCapture(maxOutput);
            OutputCapture stderr = new OutputCapture(maxOutput);
            Thread stdinWriter = Thread.ofVirtual().start(
                    () -> ChildStreams.feed(process.getOutputStream(), new byte[0], spec.stdin()));
            Thread outReader = Thread.ofVirtual().start(
                    () -> ChildStreams.pump(process.getInputStream(), stdout, StreamName.STDOUT, maxOutput, emitter));
            Thread errReader = Thread.ofVirtual().start(
                    () -> ChildStreams.pump(process.getErrorStream(), stderr, StreamName.STDERR, maxOutput, emitter));

            boolean exited = waitRecordingTree(process, tree, started + spec.limits().timeout().toNanos());
            // Also after a normal exit: background processes the code left behind end with the run, as on Linux.
            tree.killAll();
            process.waitFor();
            long durationMs = (System.nanoTime() - started) / 1_000_000;
            outReader.join(Duration.ofSeconds(5));
            errReader.join(Duration.ofSeconds(5));
            stdinWriter.interrupt();

            int exitCode = process.exitValue();
            Optional<Integer> signal = ChildStreams.signalOf(exitCode);
            boolean timedOut = !exited && !cancelled.get();
            return new SandboxResult(exitCode, signal, timedOut, timedOut ? Optional.of(LimitHit.TIMEOUT) : Optional.empty(),
                    durationMs, stdout.result(), stderr.result(), ResourceUsage.NONE);
        } finally {
            if (tree != null) {
                tree.killAll();
            }
            ChildStreams.deleteTree(jobDir);
        }
    }

    /** Waits until the process exits (true) or the deadline passes (false), recording its tree meanwhile. */
    private static boolean waitRecordingTree(Process process, ProcessTree tree, long deadlineNanos)
            throws InterruptedException {
        while (true) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return !process.isAlive();
            }
            if (process.waitFor(Math.min(remaining, TREE_SAMPLE_INTERVAL.toNanos()), TimeUnit.NANOSECONDS)) {
                return true;
            }
            tree.record();
        }
    }

    /** Creates code/, workspace/ and tmp/ private to the service user; returns them as real paths. */
    private static SeatbeltProfile.JobDirectories prepareJobDir(Path jobDir, SandboxSpec spec) throws IOException {
        if (spec.persistent().isPresent()) {
            // Seatbelt has no mount namespace to put /home/sandbox and /cache in
            throw new SandboxException("sessions need the Linux sandbox (bubblewrap)");
        }
        var privateDir = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
        Files.createDirectory(jobDir, privateDir);
        SeatbeltProfile.JobDirectories fresh = SeatbeltProfile.JobDirectories.in(jobDir.toRealPath());
        for (Path dir : List.of(fresh.code(), fresh.workspace(), fresh.tmp())) {
            Files.createDirectory(dir, privateDir);
        }
        SeatbeltProfile.JobDirectories dirs = spec.workspaceMount()
                .map(host -> new SeatbeltProfile.JobDirectories(fresh.code(), host, fresh.tmp())).orElse(fresh);
        Path codeFile = Files.write(dirs.code().resolve(spec.codeFileName()), spec.code());
        Files.setPosixFilePermissions(codeFile, PosixFilePermissions.fromString("r--------"));
        return dirs;
    }

    /**
     * The run's processes: the root and every descendant seen while it ran. macOS has no pid
     * namespace, so a process whose parent died is reparented to launchd and leaves the root's
     * tree; having been recorded, it is still killed. ProcessHandle checks the start time, so a
     * reused pid is never hit.
     */
    private static final class ProcessTree {

        private static final int KILL_ROUNDS = 5;

        private final Process root;
        private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();

        ProcessTree(Process root) {
            this.root = root;
        }

        /** Keeps the live ones only, so the set stays as small as the tree however many processes come and go. */
        void record() {
            seen.removeIf(p -> !p.isAlive());
            root.descendants().forEach(seen::add);
        }

        /** SIGKILL to all, repeated while any survive (a process may fork between listing and kill). */
        void killAll() {
            for (int round = 0; round < KILL_ROUNDS; round++) {
                record();
                List<ProcessHandle> alive = Stream.concat(Stream.of(root.toHandle()), seen.stream())
                        .flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
                        .filter(ProcessHandle::isAlive)
                        .toList();
                if (alive.isEmpty()) {
                    return;
                }
                alive.forEach(ProcessHandle::destroyForcibly);
            }
        }
    }
}

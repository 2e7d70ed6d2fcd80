package dev.nixexec.sandbox;

import dev.nixexec.config.ExecutableLookup;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Linux sandbox: bubblewrap in fresh namespaces, entered through a fixed launcher chain that joins
 * the run's cgroup, sets rlimits and (when the service is root) drops to a per-run host uid.
 */
@ApplicationScoped
@Typed(BwrapSandbox.class)
public class BwrapSandbox implements Sandbox {

    private static final Logger LOG = Logger.getLogger(BwrapSandbox.class);
    private static final int CHUNK = 64 * 1024;
    private static final int SIGXCPU = 24;
    private static final int SIGXFSZ = 25;
    /**
     * Joins each cgroup.procs named before "--" and execs the rest. The script is a constant: the
     * paths and the command arrive as separate argv words and are never parsed by the shell.
     */
    private static final String CGROUP_JOIN =
            "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit 125; shift; done; shift; exec \"$@\"";

    private final NixExecConfig config;
    private final StatePaths paths;
    private final Cgroups cgroups;
    private final HostUids uids;
    private final StoreView storeView;
    private final Optional<Path> bwrap;
    private final Optional<Path> prlimit;
    private final Optional<Path> setpriv;
    private final Optional<Path> sh;

    public BwrapSandbox(NixExecConfig config, StatePaths paths, Cgroups cgroups, HostUids uids) {
        this.config = config;
        this.paths = paths;
        this.cgroups = cgroups;
        this.uids = uids;
        this.storeView = StoreView.parse(config.sandbox().storeView());
        this.bwrap = ExecutableLookup.find(config.executor().bwrapCommand());
        this.prlimit = ExecutableLookup.find("prlimit");
        this.setpriv = ExecutableLookup.find("setpriv");
        this.sh = ExecutableLookup.find("/bin/sh");
    }

    @Override
    public Optional<String> unavailableReason() {
        if (bwrap.isEmpty()) {
            return Optional.of("bubblewrap (" + config.executor().bwrapCommand() + ") is not installed or not on PATH");
        }
        if (prlimit.isEmpty()) {
            return Optional.of("prlimit (util-linux) is not on PATH");
        }
        if (uids.switching() && setpriv.isEmpty()) {
            return Optional.of("setpriv (util-linux) is not on PATH");
        }
        return Optional.empty();
    }

    @Override
    public Multi<SandboxEvent> run(SandboxSpec spec) {
        return Multi.createFrom().emitter(emitter -> {
            AtomicReference<Process> running = new AtomicReference<>();
            AtomicBoolean cancelled = new AtomicBoolean();
            emitter.onTermination(() -> {
                cancelled.set(true);
                Process p = running.get();
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                }
            });
            Thread.ofVirtual().name("sandbox").start(() -> {
                try {
                    SandboxResult result = runBlocking(spec, emitter, running, cancelled);
                    emitter.emit(new SandboxEvent.Exited(result));
                    emitter.complete();
                } catch (Exception e) {
                    emitter.fail(e);
                }
            });
        });
    }

    private SandboxResult runBlocking(SandboxSpec spec, MultiEmitter<? super SandboxEvent> emitter,
            AtomicReference<Process> running, AtomicBoolean cancelled) throws IOException, InterruptedException {
        String reason = unavailableReason().orElse(null);
        if (reason != null) {
            throw new SandboxException(reason);
        }
        String runId = UUID.randomUUID().toString();
        OptionalInt uid = uids.acquire();
        Path jobDir = paths.jobsDir().resolve(runId);
        Optional<JobCgroup> cgroup = Optional.empty();
        try {
            prepareJobDir(jobDir, spec, uid);
            cgroup = cgroups.create("run-" + runId, spec.limits().memoryBytes(), spec.limits().maxProcesses());
            List<String> argv = new ArrayList<>();
            cgroup.ifPresent(c -> {
                argv.addAll(List.of(sh.orElseThrow().toString(), "-c", CGROUP_JOIN, "nix-exec-launch"));
                c.procsFiles().forEach(f -> argv.add(f.toString()));
                argv.add("--");
            });
            argv.addAll(rlimits(spec.limits(), uid.isPresent(), cgroup.isPresent()));
            uid.ifPresent(u -> argv.addAll(List.of(setpriv.orElseThrow().toString(), "--reuid=" + u, "--regid=" + u,
                    "--clear-groups", "--")));
            argv.addAll(BwrapArguments.build(bwrap.orElseThrow(), spec, jobDir.resolve("code"), jobDir.resolve("etc"),
                    storeView));

            ProcessBuilder builder = new ProcessBuilder(argv).directory(jobDir.toFile());
            builder.environment().clear();
            long started = System.nanoTime();
            Process process = builder.start();
            running.set(process);
            if (cancelled.get()) {
                process.destroyForcibly();
            }
            emitter.emit(new SandboxEvent.Started(process.pid()));

            long maxOutput = spec.limits().maxOutputBytes();
            OutputCapture stdout = new OutputCapture(maxOutput);
            OutputCapture stderr = new OutputCapture(maxOutput);
            Thread stdinWriter = Thread.ofVirtual().start(() -> writeStdin(process.getOutputStream(), spec.stdin()));
            Thread outReader = Thread.ofVirtual().start(
                    () -> pump(process.getInputStream(), stdout, StreamName.STDOUT, maxOutput, emitter));
            Thread errReader = Thread.ofVirtual().start(
                    () -> pump(process.getErrorStream(), stderr, StreamName.STDERR, maxOutput, emitter));

            Duration timeout = spec.limits().timeout();
            boolean exited = process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (!exited) {
                process.destroyForcibly();
            }
            cgroup.ifPresent(JobCgroup::killAll);
            process.waitFor();
            long durationMs = (System.nanoTime() - started) / 1_000_000;
            outReader.join(Duration.ofSeconds(5));
            errReader.join(Duration.ofSeconds(5));
            stdinWriter.interrupt();

            int exitCode = process.exitValue();
            Optional<Integer> signal = exitCode > 128 && exitCode < 128 + 65 ? Optional.of(exitCode - 128) : Optional.empty();
            Optional<String> limitHit = cgroup.flatMap(JobCgroup::limitHit);
            if (limitHit.isEmpty() && signal.isPresent()) {
                limitHit = switch (signal.get()) {
                    case SIGXCPU -> Optional.of("cpu_time");
                    case SIGXFSZ -> Optional.of("file_size");
                    default -> Optional.empty();
                };
            }
            boolean timedOut = !exited && !cancelled.get();
            return new SandboxResult(exitCode, signal, timedOut, timedOut ? Optional.of("timeout") : limitHit,
                    durationMs, stdout.result(), stderr.result());
        } finally {
            cgroup.ifPresent(c -> {
                c.killAll();
                c.remove();
            });
            deleteTree(jobDir);
            uids.release(uid);
        }
    }

    /**
     * prlimit options. RLIMIT_NPROC only with a per-run uid (it counts per uid); RLIMIT_AS only when
     * no cgroup bounds memory, since it counts address space, not memory, and trips up runtimes that
     * reserve large ranges.
     */
    private List<String> rlimits(Limits limits, boolean perRunUid, boolean cgroupBoundsMemory) {
        List<String> a = new ArrayList<>(List.of(prlimit.orElseThrow().toString(),
                "--cpu=" + limits.effectiveCpuSeconds() + ":" + (limits.effectiveCpuSeconds() + 1),
                "--fsize=" + limits.maxFileBytes(),
                "--core=0",
                "--nofile=1024"));
        if (perRunUid) {
            a.add("--nproc=" + limits.maxProcesses());
        }
        if (!cgroupBoundsMemory) {
            a.add("--as=" + limits.memoryBytes());
        }
        a.add("--");
        return a;
    }

    private void prepareJobDir(Path jobDir, SandboxSpec spec, OptionalInt uid) throws IOException {
        Files.createDirectory(jobDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path code = Files.createDirectory(jobDir.resolve("code"));
        Files.write(code.resolve(spec.codeFileName()), spec.code());
        Path etc = Files.createDirectory(jobDir.resolve("etc"));
        for (Map.Entry<String, String> file : BwrapArguments.etcFiles().entrySet()) {
            Files.writeString(etc.resolve(file.getKey()), file.getValue());
        }
        try (Stream<Path> all = Files.walk(jobDir)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwx------" : "r--------"));
                if (uid.isPresent()) {
                    Files.setAttribute(p, "unix:uid", uid.getAsInt());
                    Files.setAttribute(p, "unix:gid", uid.getAsInt());
                }
            }
        }
    }

    private static void pump(InputStream in, OutputCapture capture, StreamName stream, long liveLimit,
            MultiEmitter<? super SandboxEvent> emitter) {
        byte[] buffer = new byte[CHUNK];
        long emitted = 0;
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                capture.append(buffer, 0, n);
                if (emitted < liveLimit && !emitter.isCancelled()) {
                    int live = (int) Math.min(n, liveLimit - emitted);
                    emitter.emit(new SandboxEvent.Output(stream, java.util.Arrays.copyOf(buffer, live)));
                    emitted += live;
                }
            }
        } catch (IOException ignored) {
            // the sandbox was killed; what was read is kept
        }
    }

    private static void writeStdin(OutputStream out, byte[] stdin) {
        try (out) {
            if (stdin != null && stdin.length > 0) {
                out.write(stdin);
            }
        } catch (IOException ignored) {
            // the code exited without reading all of its input
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    LOG.warnf("cannot delete %s: %s", p, e.getMessage());
                }
            });
        } catch (IOException e) {
            LOG.warnf("cannot clean up %s: %s", dir, e.getMessage());
        }
    }
}

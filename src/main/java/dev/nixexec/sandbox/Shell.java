package dev.nixexec.sandbox;

import com.pty4j.PtyProcess;
import com.pty4j.WinSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * An interactive shell running in a sandbox on a pseudo-terminal whose other side only this object
 * holds. Input is written with {@link #write}, output goes to its {@link ShellOutput} as it comes.
 * It ends when the shell exits, when no byte went either way for the idle timeout, at the wall-clock
 * limit, when the sandbox hits its memory or process limit, or on {@link #end}; then the whole
 * sandbox is killed (its cgroup, and bubblewrap's pid namespace with it) and {@link #ended()}
 * completes.
 */
public final class Shell {

    private static final Logger LOG = Logger.getLogger(Shell.class);
    /** Largest piece of output handed to the {@link ShellOutput} at once. */
    public static final int OUTPUT_CHUNK = 16 * 1024;
    /** How often the watchdog looks at the cgroup's limit counters when nothing else wakes it. */
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long the last output may take to reach the client after the shell exited. */
    private static final Duration DRAIN = Duration.ofSeconds(5);

    private final PtyProcess process;
    private final Launcher launcher;
    private final Duration idleTimeout;
    private final Duration timeLimit;
    private final ShellOutput output;
    private final Consumer<Launcher> release;
    private final AtomicLong bytesIn = new AtomicLong();
    private final AtomicLong bytesOut = new AtomicLong();
    private final AtomicReference<ShellEnd.Cause> endRequest = new AtomicReference<>();
    private final CompletableFuture<ShellEnd> ended = new CompletableFuture<>();
    private final long started = System.nanoTime();
    private volatile long lastActivity = started;

    Shell(PtyProcess process, Launcher launcher, Duration idleTimeout, Duration timeLimit, ShellOutput output,
            Consumer<Launcher> release) {
        this.process = process;
        this.launcher = launcher;
        this.idleTimeout = idleTimeout;
        this.timeLimit = timeLimit;
        this.output = output;
        this.release = release;
    }

    /**
     * Platform threads: reading and writing the terminal are native calls (pty4j, through JNA),
     * which would pin a virtual thread's carrier for as long as they block.
     */
    void start() {
        Thread pump = Thread.ofPlatform().daemon().name("shell-output-" + process.pid()).start(this::pump);
        Thread.ofPlatform().daemon().name("shell-watch-" + process.pid()).start(() -> watch(pump));
    }

    /**
     * Types these bytes into the terminal; blocks while the terminal's input buffer is full. A
     * native write: call it from a platform thread (see {@link #start}).
     */
    public void write(byte[] input) throws IOException {
        if (ended.isDone()) {
            throw new IOException("the shell has ended");
        }
        OutputStream in = process.getOutputStream();
        synchronized (in) {
            in.write(input);
            in.flush();
        }
        bytesIn.addAndGet(input.length);
        lastActivity = System.nanoTime();
    }

    /** Sets the terminal's window size; the shell's foreground job gets SIGWINCH. */
    public void resize(TerminalSize size) {
        if (!ended.isDone()) {
            process.setWinSize(new WinSize(size.columns(), size.rows()));
        }
    }

    /** Ends the shell and its sandbox, for this reason, unless it already ended for another. */
    public void end(String reason) {
        if (endRequest.compareAndSet(null, new ShellEnd.Ended(reason))) {
            process.destroyForcibly();
        }
    }

    /** Completes once the shell and every process of its sandbox are gone. */
    public CompletableFuture<ShellEnd> ended() {
        return ended;
    }

    public long bytesIn() {
        return bytesIn.get();
    }

    public long bytesOut() {
        return bytesOut.get();
    }

    private void pump() {
        InputStream terminal = process.getInputStream();
        byte[] buffer = new byte[OUTPUT_CHUNK];
        try {
            for (int n = terminal.read(buffer); n > 0; n = terminal.read(buffer)) {
                bytesOut.addAndGet(n);
                lastActivity = System.nanoTime();
                output.write(Arrays.copyOf(buffer, n));
            }
        } catch (IOException e) {
            // the terminal closed (EIO once no process holds its other side), or the output went away
            if (!ended.isDone() && endRequest.get() == null && process.isAlive()) {
                end("the output could not be delivered: " + e.getMessage());
            }
        }
    }

    private void watch(Thread pump) {
        ShellEnd.Cause cause;
        try {
            cause = awaitCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cause = new ShellEnd.Ended("the service stops");
        }
        try {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            launcher.cgroup().ifPresent(JobCgroup::killAll);
            process.waitFor(DRAIN.toMillis(), TimeUnit.MILLISECONDS);
            // the output the shell wrote before it ended goes out before the end is told
            pump.join(DRAIN);
            if (pump.isAlive()) {
                pump.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            release.accept(launcher);
            ended.complete(new ShellEnd(cause, bytesIn.get(), bytesOut.get(),
                    Duration.ofNanos(System.nanoTime() - started)));
        }
    }

    private ShellEnd.Cause awaitCause() throws InterruptedException {
        while (true) {
            ShellEnd.Cause requested = endRequest.get();
            if (requested != null) {
                return requested;
            }
            // a shell the kernel's limit killed ended by that limit, not by its exit
            Optional<LimitHit> limit = launcher.cgroup().flatMap(JobCgroup::limitHit);
            if (limit.isPresent()) {
                LOG.debugf("shell pid %d hit its %s limit", process.pid(), limit.get().id());
                return endWith(new ShellEnd.LimitHit(limit.get().id()));
            }
            if (!process.isAlive()) {
                return endWith(new ShellEnd.Exited(process.exitValue()));
            }
            long now = System.nanoTime();
            long untilTimeLimit = timeLimit.toNanos() - (now - started);
            if (untilTimeLimit <= 0) {
                return endWith(new ShellEnd.TimeLimit(timeLimit));
            }
            long untilIdle = idleTimeout.toNanos() - (now - lastActivity);
            if (untilIdle <= 0) {
                return endWith(new ShellEnd.IdleTimeout(idleTimeout));
            }
            process.waitFor(Math.min(POLL.toNanos(), Math.min(untilTimeLimit, untilIdle)), TimeUnit.NANOSECONDS);
        }
    }

    /** The cause, unless an end was asked for first. */
    private ShellEnd.Cause endWith(ShellEnd.Cause cause) {
        return endRequest.compareAndSet(null, cause) ? cause : endRequest.get();
    }
}

package dev.nixexec.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The processes this JVM started (its descendants) that match, watched while a test runs: a test
 * looks at nothing else on the host, so a service or another test run beside it cannot make it
 * fail, and it signals nothing it did not start. A process seen once is kept by its handle (pid
 * and start time), so one that leaves the JVM's tree later (reparented when its parent dies) is
 * still found alive.
 */
public final class OwnProcesses implements AutoCloseable {

    private static final Duration EVERY = Duration.ofMillis(50);

    private final Predicate<ProcessHandle> matching;
    private final Map<Long, ProcessHandle> seen = new ConcurrentHashMap<>();
    private final Thread watcher;
    private volatile boolean watching = true;

    private OwnProcesses(Predicate<ProcessHandle> matching) {
        this.matching = matching;
        this.watcher = Thread.ofVirtual().name("own-processes").start(() -> {
            while (watching) {
                look();
                try {
                    Thread.sleep(EVERY);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Starts watching this JVM's descendants for processes that match. */
    public static OwnProcesses watch(Predicate<ProcessHandle> matching) {
        return new OwnProcesses(matching);
    }

    /** Processes whose command line contains {@code marker}. */
    public static OwnProcesses marked(String marker) {
        return watch(p -> commandLine(p).contains(marker));
    }

    public static String commandLine(ProcessHandle process) {
        return process.info().commandLine().orElse("");
    }

    private void look() {
        ProcessHandle.current().descendants().filter(matching).forEach(p -> seen.putIfAbsent(p.pid(), p));
    }

    /** The matching processes alive now: descendants now, and any seen before that still lives. */
    public List<ProcessHandle> alive() {
        look();
        return seen.values().stream().filter(ProcessHandle::isAlive).toList();
    }

    /** As {@link #alive}, after waiting up to {@code grace} for the kernel to finish killing them. */
    public List<ProcessHandle> aliveAfter(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        List<ProcessHandle> left = alive();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(EVERY);
            left = alive();
        }
        return left;
    }

    public static String describe(List<ProcessHandle> processes) {
        return processes.stream().map(p -> p.pid() + " " + commandLine(p)).toList().toString();
    }

    @Override
    public void close() throws InterruptedException {
        watching = false;
        watcher.interrupt();
        watcher.join();
    }
}

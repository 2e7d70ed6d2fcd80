package dev.nixexec.sandbox;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * When the service runs as root, each concurrent run gets its own unprivileged host uid from a
 * range: RLIMIT_NPROC counts processes per uid across the host, so a shared uid would let one run's
 * processes count against another's, and a per-run uid lets every process of a run be found and
 * killed. A lock file per uid keeps several services on one host from handing out the same uid.
 *
 * <p>A uid newly locked may still have processes of a service that crashed holding it, so they are
 * searched for and killed, which reads every process's status. A uid whose run's cgroup was removed
 * (the kernel refuses while a process is in it) has none, so its lock is kept and it is taken again
 * without the search.
 */
@ApplicationScoped
public class HostUids {

    private static final int RANGE = 4096;

    private final int base;
    private final boolean root;
    private final Path lockDir;
    private final Map<Integer, FileLock> held = new HashMap<>();
    /** Held, not in use, and known to have no process. */
    private final Deque<Integer> emptied = new ArrayDeque<>();

    public HostUids(NixExecConfig config) {
        this.base = config.sandbox().hostUidBase();
        this.root = "root".equals(System.getProperty("user.name"));
        this.lockDir = StatePaths.privateRunDir().resolve("uids");
    }

    /** True when runs switch uid (the service is root); otherwise they run as the service user. */
    public boolean switching() {
        return root;
    }

    public OptionalInt acquire() {
        if (!root) {
            return OptionalInt.empty();
        }
        synchronized (this) {
            Integer known = emptied.pollFirst();
            if (known != null) {
                return OptionalInt.of(known);
            }
        }
        int uid = reserve();
        // a crashed earlier service may have left processes under this uid
        killProcessesOf(uid);
        return OptionalInt.of(uid);
    }

    private synchronized int reserve() {
        try {
            StatePaths.ensurePrivate(lockDir);
            for (int i = 0; i < RANGE; i++) {
                int uid = base + i;
                if (held.containsKey(uid)) {
                    continue;
                }
                FileChannel channel = FileChannel.open(lockDir.resolve(Integer.toString(uid)), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException heldInThisProcess) {
                    // by another instance of the service in this JVM (tests start several)
                    lock = null;
                }
                if (lock == null) {
                    channel.close();
                    continue;
                }
                held.put(uid, lock);
                return uid;
            }
        } catch (IOException e) {
            throw new SandboxException("cannot reserve a host uid for the run: " + e.getMessage());
        }
        throw new SandboxException("all " + RANGE + " sandbox host uids are in use");
    }

    /** Unlocks every uid this instance holds, kept or in use: a service that stops holds none. */
    @PreDestroy
    synchronized void close() {
        emptied.clear();
        held.values().forEach(lock -> {
            try {
                lock.channel().close();
            } catch (IOException ignored) {
                // closing releases the lock; nothing else to do
            }
        });
        held.clear();
    }

    /** Gives the uid back; {@code noProcessLeft}: the run's cgroup was removed, so none of its processes lives. */
    public synchronized void release(OptionalInt uid, boolean noProcessLeft) {
        if (uid.isEmpty()) {
            return;
        }
        if (noProcessLeft && held.containsKey(uid.getAsInt())) {
            emptied.addFirst(uid.getAsInt());
            return;
        }
        FileLock lock = held.remove(uid.getAsInt());
        if (lock != null) {
            try {
                lock.channel().close();
            } catch (IOException ignored) {
                // closing releases the lock; nothing else to do
            }
        }
    }

    /**
     * Kills every process whose real uid is {@code uid}, until none is left. Only ever called for a
     * per-run uid, so it reaches exactly that run's processes, wherever they hid.
     */
    static void killProcessesOf(int uid) {
        for (int round = 0; round < 200; round++) {
            List<Long> pids = processesOf(uid);
            if (pids.isEmpty()) {
                return;
            }
            // take the handle first (it pins the start time destroy checks), then re-check the uid,
            // so a pid reused by another process in between is never killed
            pids.forEach(pid -> ProcessHandle.of(pid)
                    .filter(h -> realUid(Path.of("/proc", Long.toString(pid))) == uid)
                    .ifPresent(ProcessHandle::destroyForcibly));
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static List<Long> processesOf(int uid) {
        try (Stream<Path> proc = Files.list(Path.of("/proc"))) {
            return proc.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> realUid(p) == uid)
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The real uid of a live process; -1 for a zombie (dead already, waiting for its parent) or a gone one. */
    private static int realUid(Path process) {
        try {
            int uid = -1;
            for (String line : Files.readAllLines(process.resolve("status"))) {
                if (line.startsWith("State:") && line.contains("Z")) {
                    return -1;
                }
                if (line.startsWith("Uid:")) {
                    uid = Integer.parseInt(line.split("\\s+")[1]);
                }
            }
            return uid;
        } catch (IOException | RuntimeException ignored) {
            // the process exited while we looked
        }
        return -1;
    }
}

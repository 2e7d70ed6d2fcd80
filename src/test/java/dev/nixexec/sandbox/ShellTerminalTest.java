package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.OwnProcesses;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * An interactive shell on a real pseudo-terminal in the real sandbox (bubblewrap, seccomp, cgroup),
 * with the fixture's python environment: what a person at the terminal sees, and each attack a
 * shell on a terminal adds to those a job can make.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ShellTerminalTest {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final Limits LIMITS = new Limits(Duration.ofMinutes(2), 256L * 1024 * 1024, 64, 0, 64L * 1024 * 1024,
            16L * 1024 * 1024, 16L * 1024 * 1024, 1024 * 1024);

    /** The terminal's size as a program on it sees it (TIOCGWINSZ); the fixture's coreutils have no stty. */
    static final String SIZE = "python3 -c \"import os; s = os.get_terminal_size(0); print('size', s.lines, s.columns)\"";

    @Inject
    BwrapShells shells;

    @Inject
    EnvironmentCache environments;

    /** What the terminal showed, as it comes; tests wait on it for a text. */
    static class Screen implements ShellOutput {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(byte[] chunk) {
            bytes.writeBytes(chunk);
            notifyAll();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized long size() {
            return bytes.size();
        }

        /** Waits until the screen shows {@code expected} after what it showed at {@code from}. */
        synchronized String await(String expected, int from) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!text().substring(Math.min(from, text().length())).contains(expected)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the terminal did not show " + expected + ", it showed:\n" + text());
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return text();
        }
    }

    private SandboxSpec spec(Limits limits) throws Exception {
        Environment env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
        return Specs.fresh(env.storePath(), env.closure(), "unused", new byte[0], List.of("bash"), Map.of(),
                new byte[0], limits, false);
    }

    private final List<Shell> started = new java.util.ArrayList<>();

    private Shell start(Screen screen) throws Exception {
        return start(LIMITS, new TerminalSize(100, 30), Duration.ofMinutes(1), screen);
    }

    private Shell start(Limits limits, TerminalSize size, Duration idle, Screen screen) throws Exception {
        Shell shell = shells.start(spec(limits), size, idle, screen);
        started.add(shell);
        return shell;
    }

    /** A test that failed half-way leaves no shell for the next one to find. */
    @org.junit.jupiter.api.AfterEach
    void endShells() throws Exception {
        for (Shell shell : started) {
            shell.end("test over");
            ended(shell);
        }
    }

    private static void type(Shell shell, String text) throws IOException {
        shell.write(text.getBytes(StandardCharsets.UTF_8));
    }

    private static ShellEnd ended(Shell shell) throws Exception {
        return shell.ended().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void typedCommandsRunAndTheExitCodeComesBack() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(screen);
        screen.await("sandbox:", 0);
        String typed = "echo $((6*7))\n";
        type(shell, typed);
        assertTrue(screen.await("42\r\n", 0).contains("42\r\n"));
        type(shell, "exit 3\n");
        ShellEnd end = ended(shell);
        assertEquals(new ShellEnd.Exited(3), end.cause());
        assertEquals(typed.length() + "exit 3\n".length(), end.bytesIn());
        assertEquals(screen.size(), end.bytesOut(), "every byte shown was counted, and reached the output before the end");
    }

    @Test
    void theWindowSizeIsSetAtStartAndOnResizeWithSigwinch() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(screen);
        type(shell, SIZE + "\n");
        screen.await("size 30 100", 0);
        int from = screen.text().length();
        type(shell, "python3 -c \"import os, signal; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGWINCH]); "
                + "print('waiting', flush=True); signal.sigwait([signal.SIGWINCH]); s = os.get_terminal_size(0); "
                + "print('winch', s.lines, s.columns)\"\n");
        screen.await("waiting\r\n", from);
        shell.resize(new TerminalSize(132, 43));
        screen.await("winch 43 132", from);
        shell.end("test over");
        assertEquals(new ShellEnd.Ended("test over"), ended(shell).cause());
    }

    /** The terminal is the shell's controlling terminal: Ctrl-C interrupts the foreground job. */
    @Test
    void ctrlCInterruptsTheForegroundJobNotTheShell() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(screen);
        type(shell, "sleep 600\n");
        Awaitility.await().atMost(WAIT).until(() -> ProcessHandle.current().descendants().anyMatch(p -> arguments(p).equals("600")));
        shell.write(new byte[] {3});
        type(shell, "echo after=$?; exit 5\n");
        screen.await("after=130", 0);
        assertEquals(new ShellEnd.Exited(5), ended(shell).cause(), "the shell outlived its interrupted job");
    }

    /**
     * Terminal injection: TIOCSTI (push bytes into a terminal's input, as if typed) and TIOCLINUX
     * are refused by the seccomp filter, on the very terminal that is the caller's controlling one
     * (where the kernel would otherwise allow TIOCSTI; this host has dev.tty.legacy_tiocsti=1).
     */
    @Test
    void terminalInjectionIoctlsAreRefused() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(screen);
        type(shell, "python3 -c \"import ctypes, errno, os; l = ctypes.CDLL(None, use_errno=True); "
                + "print('controlling', os.tcgetpgrp(0) == os.getpgrp()); "
                + "[print(n, l.ioctl(0, r, ctypes.c_char_p(b'x')), errno.errorcode.get(ctypes.get_errno())) "
                + "for n, r in (('TIOCSTI', 0x5412), ('TIOCLINUX', 0x541C), ('TIOCGWINSZ', 0x5413))]\"\n");
        String shown = screen.await("TIOCGWINSZ 0", 0);
        assertTrue(shown.contains("controlling True"), shown);
        assertTrue(shown.contains("TIOCSTI -1 EPERM"), shown);
        assertTrue(shown.contains("TIOCLINUX -1 EPERM"), shown);
        shell.end("test over");
        ended(shell);
    }

    /**
     * What the shell starts stays in the run's cgroup, whatever it tries (no /sys, no capability to
     * mount one, no way out of its pid namespace), and nothing outlives the shell: not a job sent to
     * the background, not one in a session of its own.
     */
    @Test
    void nothingEscapesTheCgroupOrOutlivesTheShell() throws Exception {
        try (OwnProcesses left = OwnProcesses.watch(p -> arguments(p).contains("4242"))) {
            Screen screen = new Screen();
            Shell shell = start(screen);
            type(shell, "sleep 4242 & disown; python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); time.sleep(4242.5)' & "
                    + "echo $$ > /sys/fs/cgroup/cgroup.procs; mkdir -p /tmp/cg && mount -t cgroup2 none /tmp/cg; "
                    + "echo tried=$?\n");
            screen.await("tried=", 0);
            Awaitility.await().atMost(WAIT).until(() -> left.alive().size() == 2);
            for (ProcessHandle sleeper : left.alive()) {
                String cgroups = Files.readString(Path.of("/proc", Long.toString(sleeper.pid()), "cgroup"));
                assertTrue(cgroups.contains("/run-"), "in the run's cgroup: " + cgroups);
            }
            type(shell, "exit 0\n");
            assertEquals(new ShellEnd.Exited(0), ended(shell).cause());
            assertEquals(List.of(), left.alive(), "no process outlives the shell");
        }
    }

    @Test
    void aForkBombEndsTheShellAtTheProcessLimit() throws Exception {
        try (OwnProcesses bombs = OwnProcesses.marked(BwrapShells.RC_FILE)) {
            Screen screen = new Screen();
            Shell shell = start(screen);
            screen.await("sandbox:", 0);
            type(shell, "bomb() { bomb | bomb & }; bomb\n");
            ShellEnd end = ended(shell);
            assertEquals(new ShellEnd.LimitHit("processes"), end.cause());
            // killed (SIGKILL to the whole cgroup) before the end is told; the kernel reaps them a moment later
            Awaitility.await("the whole sandbox goes with the shell").atMost(Duration.ofSeconds(10))
                    .until(() -> bombs.alive().isEmpty());
        }
    }

    @Test
    void runningOutOfMemoryEndsTheShell() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(screen);
        type(shell, "python3 -c 'x = bytearray(1024 * 1024 * 1024)'\n");
        assertEquals(new ShellEnd.LimitHit("memory"), ended(shell).cause());
    }

    /**
     * An output flood meets a reader that does not read: the pump holds one chunk, the terminal's
     * buffer fills and the flooding program blocks in its write, nothing piles up in the service.
     */
    @Test
    void anOutputFloodIsHeldBackNotBuffered() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        long[] stalledAt = {-1};
        Screen screen = new Screen() {
            @Override
            public void write(byte[] chunk) {
                super.write(chunk);
                if (text().contains("nixexec-flood\r\n")) {
                    synchronized (stalledAt) {
                        stalledAt[0] = stalledAt[0] < 0 ? size() : stalledAt[0];
                    }
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        try (OwnProcesses flood = OwnProcesses.watch(p -> arguments(p).equals("nixexec-flood"))) {
            Shell shell = start(screen);
            type(shell, "yes nixexec-flood\n");
            Awaitility.await().atMost(WAIT).until(() -> flood.alive().stream().anyMatch(ShellTerminalTest::blocked));
            long shown = shell.bytesOut();
            assertTrue(shown <= screen.size() + Shell.OUTPUT_CHUNK,
                    "at most one chunk is held while the reader stalls: read " + shown + ", delivered " + screen.size());
            release.countDown();
            shell.end("test over");
            assertEquals(new ShellEnd.Ended("test over"), ended(shell).cause());
            assertEquals(List.of(), flood.alive());
        }
    }

    @Test
    void anIdleShellEnds() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(LIMITS, TerminalSize.DEFAULT, Duration.ofSeconds(1), screen);
        ShellEnd end = ended(shell);
        assertEquals(new ShellEnd.IdleTimeout(Duration.ofSeconds(1)), end.cause());
        assertTrue(end.duration().compareTo(Duration.ofSeconds(1)) >= 0, end.toString());
    }

    @Test
    void aShellEndsAtItsTimeLimitHoweverBusy() throws Exception {
        Screen screen = new Screen();
        Shell shell = start(LIMITS.withTimeout(Duration.ofSeconds(2)), TerminalSize.DEFAULT, Duration.ofMinutes(1),
                screen);
        type(shell, "while :; do echo busy; sleep 0.1; done\n");
        ShellEnd end = ended(shell);
        assertEquals(new ShellEnd.TimeLimit(Duration.ofSeconds(2)), end.cause());
    }

    /**
     * A process's arguments, without its program: the fixture's coreutils are busybox applets,
     * whose executable is busybox whatever they were called as.
     */
    private static String arguments(ProcessHandle process) {
        return process.info().arguments().map(a -> String.join(" ", a)).orElse("");
    }

    /** Whether the process sleeps (state S): a flood that sleeps is blocked in its write. */
    private static boolean blocked(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("S");
        } catch (IOException e) {
            return false;
        }
    }
}

package dev.nixexec.sandbox;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Each attack runs as real code in the real sandbox and must be contained. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SandboxEscapeTest {

    @Inject
    ExecutionEngine engine;

    private ExecutionResult python(String code) {
        return Runs.run(engine, ExecutionRequest.of("python", code));
    }

    private ExecutionResult bash(String code) {
        return Runs.run(engine, ExecutionRequest.of("bash", code));
    }

    /** Prints, for each path, whether the sandbox could read it. */
    private static final String PROBE_READ = """
            import os, sys
            for p in sys.argv[1:] if len(sys.argv) > 1 else %s:
                try:
                    if os.path.isdir(p):
                        os.listdir(p)
                    else:
                        open(p, 'rb').read(1)
                    print(p, 'READABLE')
                except OSError as e:
                    print(p, 'denied', type(e).__name__)
            """;

    @Test
    void hostFilesAreNotThere() {
        ExecutionResult result = python(PROBE_READ.formatted(
                "['/etc/shadow', '/root', '/home', '/usr/lib', '/usr/bin/python3', '/usr/local', '/var', '/boot', "
                        + "'/etc/ssh', '/run', '/sys/fs/cgroup', '" + System.getProperty("user.dir") + "', '/work']"));
        assertEquals("succeeded", result.status(), describe(result));
        assertFalse(stdout(result).contains("READABLE"), stdout(result));
    }

    @Test
    void etcHoldsOnlyTheSyntheticFiles() {
        ExecutionResult result = python("import os\nprint(sorted(os.listdir('/etc')))\nprint(open('/etc/passwd').read())");
        assertTrue(stdout(result).startsWith("['group', 'hosts', 'nsswitch.conf', 'passwd']\n"), describe(result));
        assertFalse(stdout(result).contains("/root"), "the host's passwd is not visible");
    }

    @Test
    void writesOnlyToWorkspaceAndTmp() {
        ExecutionResult result = python("""
                import os
                # /etc/hosts: every run's /etc files are one shared copy
                for p in ['/evil', '/etc/evil', '/etc/hosts', '/code/evil', '/nix/store/evil', '/usr/bin/evil', '/proc/evil',
                          '/workspace/ok', '/tmp/ok']:
                    try:
                        open(p, 'a').write('x')
                        print(p, 'WRITTEN')
                    except OSError as e:
                        print(p, 'denied')
                """);
        String out = stdout(result);
        assertTrue(out.contains("/workspace/ok WRITTEN") && out.contains("/tmp/ok WRITTEN"), describe(result));
        assertEquals(2, out.lines().filter(l -> l.endsWith("WRITTEN")).count(), out);
    }

    @Test
    void storePathsCannotBeModified() {
        ExecutionResult result = python("""
                import sys, os
                exe = os.path.realpath(sys.executable)
                for action in ('write', 'chmod', 'unlink'):
                    try:
                        if action == 'write': open(exe, 'ab').write(b'x')
                        if action == 'chmod': os.chmod(exe, 0o777)
                        if action == 'unlink': os.unlink(exe)
                        print(action, 'DONE')
                    except OSError:
                        print(action, 'denied')
                """);
        assertFalse(stdout(result).contains("DONE"), describe(result));
        assertEquals(3, stdout(result).lines().count(), describe(result));
    }

    @Test
    void runsAsUnprivilegedUserWithoutCapabilities() {
        ExecutionResult result = python("""
                import os
                print(os.getuid(), os.getgid())
                status = open('/proc/self/status').read()
                print([l.split()[1] for l in status.splitlines() if l.startswith('CapEff') or l.startswith('CapBnd')])
                """);
        assertEquals("1000 1000\n['0000000000000000', '0000000000000000']\n", stdout(result), describe(result));
    }

    @Test
    void isNotRootOnTheHost() throws Exception {
        var run = java.util.concurrent.CompletableFuture.supplyAsync(() -> python("""
                import os, sys
                os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(4)', 'nixexec-uid-probe'])
                """));
        String hostUid = null;
        for (int i = 0; i < 100 && hostUid == null; i++) {
            Thread.sleep(100);
            hostUid = ProcessHandle.current().descendants()
                    .filter(p -> p.info().commandLine().orElse("").contains("nixexec-uid-probe"))
                    .map(p -> statusUid(p.pid())).filter(java.util.Objects::nonNull).findFirst().orElse(null);
        }
        run.join();
        assertNotNull(hostUid, "the probe process was not found on the host");
        assertNotEquals("0", hostUid, "the sandboxed code runs as root on the host");
    }

    private static String statusUid(long pid) {
        try {
            return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("Uid:")).map(l -> l.split("\\s+")[1]).findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    @Test
    void noTcpToTheHost() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(100);
            AtomicBoolean accepted = new AtomicBoolean();
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            server.accept().close();
                            accepted.set(true);
                        } catch (SocketTimeoutException ignored) {
                            // keep listening until the test ends
                        }
                    }
                } catch (IOException ignored) {
                    // closed
                }
            });
            ExecutionResult result = python("""
                    import socket
                    for host in ['127.0.0.1', '10.0.2.2', '1.1.1.1']:
                        s = socket.socket()
                        s.settimeout(2)
                        try:
                            s.connect((host, %d))
                            print(host, 'CONNECTED')
                        except OSError as e:
                            print(host, 'refused', e)
                    """.formatted(server.getLocalPort()));
            acceptor.interrupt();
            assertFalse(stdout(result).contains("CONNECTED"), describe(result));
            assertFalse(accepted.get(), "the host's listener got a connection from the sandbox");
        }
    }

    @Test
    void noUdpToTheHost() throws IOException {
        try (DatagramSocket receiver = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            receiver.setSoTimeout(1500);
            ExecutionResult result = python("""
                    import socket
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    for host in ['127.0.0.1', '8.8.8.8']:
                        try:
                            s.sendto(b'escape', (host, %d))
                            print(host, 'sent')
                        except OSError as e:
                            print(host, 'failed', e)
                    """.formatted(receiver.getLocalPort()));
            assertEquals("succeeded", result.status(), describe(result));
            DatagramPacket packet = new DatagramPacket(new byte[64], 64);
            boolean received;
            try {
                receiver.receive(packet);
                received = true;
            } catch (SocketTimeoutException e) {
                received = false;
            }
            assertFalse(received, "a datagram from the sandbox reached the host");
        }
    }

    @Test
    void noDns() {
        ExecutionResult result = python("""
                import socket, os
                print(os.path.exists('/etc/resolv.conf'))
                try:
                    print(socket.getaddrinfo('example.com', 80))
                except OSError as e:
                    print('no dns', type(e).__name__)
                print(sorted(n for _, n in socket.if_nameindex()))
                """);
        assertEquals("False\nno dns gaierror\n['lo']\n", stdout(result), describe(result));
    }

    @Test
    void hostProcessesAreInvisibleAndUnreachable() {
        long self = ProcessHandle.current().pid();
        ExecutionResult result = python("""
                import os, signal, ctypes
                pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
                print(len(pids) <= 4, %d in pids)
                for sig in (0, signal.SIGKILL):
                    try:
                        os.kill(%d, sig)
                        print('SIGNALLED')
                    except ProcessLookupError:
                        print('no such process')
                libc = ctypes.CDLL(None, use_errno=True)
                PTRACE_ATTACH = 16
                print('ptrace', libc.ptrace(PTRACE_ATTACH, %d, 0, 0), ctypes.get_errno())
                """.formatted(self, self, self));
        assertEquals("True False\nno such process\nno such process\nptrace -1 3\n", stdout(result), describe(result));
        assertTrue(ProcessHandle.current().isAlive());
    }

    @Test
    void cannotMountOrCreateNamespaces() {
        ExecutionResult result = python("""
                import ctypes, os
                libc = ctypes.CDLL(None, use_errno=True)
                r = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)
                print('mount', r, os.strerror(ctypes.get_errno()))
                for name, flag in (('user', 0x10000000), ('mount', 0x00020000), ('net', 0x40000000), ('pid', 0x20000000)):
                    r = libc.unshare(flag)
                    print('unshare', name, r)
                r = libc.chroot(b'/tmp')
                print('chroot', r)
                """);
        assertEquals("""
                mount -1 Operation not permitted
                unshare user -1
                unshare mount -1
                unshare net -1
                unshare pid -1
                chroot -1
                """, stdout(result), describe(result));
    }

    @Test
    void hostnameIsTheSandboxs() {
        ExecutionResult result = bash("cat /proc/sys/kernel/hostname; id -un");
        assertEquals("sandbox\nsandbox\n", stdout(result), describe(result));
    }
}

package dev.nixexec.sandbox;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The seccomp filter, proven against the real kernel: each attack runs once through the engine and
 * once under the very same bubblewrap options without {@code --seccomp}. The second run shows the
 * attack is real (right syscall number, the call succeeds or fails for another reason) and that
 * bubblewrap alone does not stop it; the first shows the filter does. The unfiltered outcomes are
 * this host's (kernel 6.18, perf_event_paranoid=2, unprivileged_bpf_disabled=2,
 * io_uring_disabled=0, dev.tty.legacy_tiocsti=1, no kexec_file_load); another kernel may differ there.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SeccompSandboxTest {

    /** One line per attempt: its name and "ok" or the errno name it got. */
    static final String ATTACKS = """
            import ctypes, errno, fcntl, mmap, os, platform, termios
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            def report(name, r):
                print(name, 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()), flush=True)
            def call(name, nr, *args):
                ctypes.set_errno(0)
                report(name, libc.syscall(nr, *args))
            buf = ctypes.create_string_buffer(256)
            call('add_key', 248, b'user', b'nixexec-probe', b'secret', 6, -2)
            call('keyctl', 250, 0, -3, 1)
            call('request_key', 249, b'user', b'nixexec-absent', None, 0)
            call('userfaultfd', 323, 0o2000000 | 1)
            call('io_uring_setup', 425, 4, buf)
            call('io_uring_enter', 426, -1, 0, 0, 0, None, 0)
            call('io_uring_register', 427, -1, 0, None, 0)
            attr = ctypes.create_string_buffer(136)
            ctypes.memmove(attr, (1).to_bytes(4, 'little') + (64).to_bytes(4, 'little') + (1).to_bytes(8, 'little'), 16)
            attr[40] = bytes([1 | 32 | 64])  # disabled, exclude_kernel, exclude_hv
            call('perf_event_open', 298, attr, 0, -1, -1, 0)
            call('bpf', 321, 0, buf, 72)
            call('kexec_file_load', 320, -1, -1, 0, None, 0)
            call('personality ADDR_NO_RANDOMIZE', 135, 0x0040000)
            call('personality query', 135, 0xffffffff)
            child = os.fork()
            if child == 0:
                # a new session whose controlling terminal is a pty of our own: TIOCSTI's one legitimate target
                os.setsid()
                m, s = os.openpty()
                fcntl.ioctl(s, termios.TIOCSCTTY, 0)
                ctypes.set_errno(0)
                report('ioctl TIOCSTI', libc.ioctl(s, 0x5412, ctypes.c_char_p(b'x')))
                ctypes.set_errno(0)
                report('ioctl TIOCSTI high bits', libc.syscall(16, s, 0x1_0000_5412, ctypes.c_char_p(b'x')))
                ctypes.set_errno(0)
                report('ioctl TIOCGWINSZ', libc.ioctl(s, 0x5413, buf))
                os._exit(0)
            os.waitpid(child, 0)
            if platform.machine() == 'x86_64':
                # getpid through the i386 entry point: mov eax, 20; int 0x80; ret. In a child: a kernel
                # built or booted without IA32 emulation answers int 0x80 with SIGSEGV, no syscall at all.
                child = os.fork()
                if child == 0:
                    code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
                    code.write(b'\\xb8\\x14\\x00\\x00\\x00\\xcd\\x80\\xc3')
                    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
                    r = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
                    print('i386 getpid', 'ok' if r == os.getpid() else errno.errorcode.get(-r, r), flush=True)
                    os._exit(0)
                _, status = os.waitpid(child, 0)
                if os.WIFSIGNALED(status):
                    print('i386 getpid no i386 entry', flush=True)
            """;

    @Inject
    ExecutionEngine engine;

    @Test
    void theFilterRefusesWhatBubblewrapAloneAllows() throws Exception {
        ExecutionResult filtered = Runs.run(engine, ExecutionRequest.of("python", ATTACKS));
        assertEquals("succeeded", filtered.status(), describe(filtered));
        String env = filtered.environment().orElseThrow().storePath();
        String unfiltered = runInBubblewrapAlone(env, ATTACKS);

        assertEquals("""
                add_key ok
                keyctl ok
                request_key ENOKEY
                userfaultfd ok
                io_uring_setup ok
                io_uring_enter EBADF
                io_uring_register EINVAL
                perf_event_open ok
                bpf EINVAL
                kexec_file_load ENOSYS
                personality ADDR_NO_RANDOMIZE ok
                personality query ok
                ioctl TIOCSTI ok
                ioctl TIOCSTI high bits ok
                ioctl TIOCGWINSZ ok
                """ + i386Line(unfiltered), unfiltered, "without the filter (the attacks are real)");
        assertEquals("""
                add_key EPERM
                keyctl EPERM
                request_key EPERM
                userfaultfd EPERM
                io_uring_setup ENOSYS
                io_uring_enter ENOSYS
                io_uring_register ENOSYS
                perf_event_open EPERM
                bpf EPERM
                kexec_file_load EPERM
                personality ADDR_NO_RANDOMIZE EPERM
                personality query ok
                ioctl TIOCSTI EPERM
                ioctl TIOCSTI high bits EPERM
                ioctl TIOCGWINSZ ok
                """ + (i386Line(unfiltered).equals("i386 getpid ok\n") ? "i386 getpid ENOSYS\n" : i386Line(unfiltered)),
                stdout(filtered), describe(filtered));
    }

    /**
     * The i386 probe's line of a run without the filter: "ok" where the kernel has the i386 entry
     * point (the filter must then answer ENOSYS), "no i386 entry" where it was built or booted without
     * IA32 emulation (as on Firecracker guests) and there is nothing to refuse.
     */
    private static String i386Line(String unfiltered) {
        return unfiltered.lines().filter(l -> l.startsWith("i386 getpid")).findFirst()
                .filter(l -> l.equals("i386 getpid ok") || l.equals("i386 getpid no i386 entry"))
                .map(l -> l + "\n").orElseThrow(() -> new AssertionError("no usable i386 probe line in " + unfiltered));
    }

    /** One line per socket: vsock, packet, Bluetooth, AF_ALG, AF_KEY, netlink protocols, and the ones jobs use. */
    static final String SOCKETS = """
            import ctypes, errno, os
            libc = ctypes.CDLL(None, use_errno=True)
            def report(name, r):
                print(name, 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()), flush=True)
            def sock(name, family, type_, proto=0):
                ctypes.set_errno(0)
                fd = libc.socket(family, type_, proto)
                report(name, fd)
                return fd
            fd = sock('AF_VSOCK stream', 40, 1)
            if fd >= 0:
                addr = (40).to_bytes(2, 'little') + bytes(2) + (23456).to_bytes(4, 'little') + (0xffffffff).to_bytes(4, 'little') + bytes(4)
                ctypes.set_errno(0)
                report('AF_VSOCK bind 23456', libc.bind(fd, addr, 16))
            else:
                print('AF_VSOCK bind 23456 not tried', flush=True)
            sock('AF_PACKET raw', 17, 3, 0x0300)
            sock('AF_PACKET dgram', 17, 2, 0x0300)
            sock('AF_BLUETOOTH', 31, 1, 3)
            sock('AF_ALG', 38, 5)
            sock('AF_KEY', 15, 3, 2)
            sock('AF_NETLINK audit', 16, 3, 9)
            sock('AF_NETLINK uevent', 16, 2, 15)
            sock('AF_NETLINK generic', 16, 3, 16)
            sock('AF_NETLINK route', 16, 3, 0)
            sock('AF_INET stream', 2, 1)
            sock('AF_INET6 dgram', 10, 2)
            sv = (ctypes.c_int * 2)()
            ctypes.set_errno(0)
            report('AF_UNIX socketpair', libc.socketpair(1, 1, 0, sv))
            ctypes.set_errno(0)
            report('AF_VSOCK socketpair', libc.socketpair(40, 1, 0, sv))
            import socket
            print('getaddrinfo localhost', sorted({a[4][0] for a in socket.getaddrinfo('localhost', 80, flags=socket.AI_ADDRCONFIG)}), flush=True)
            print('if_nameindex', socket.if_nameindex(), flush=True)
            """;

    /** Was a finding: with the network off a job still bound vsock port 23456, which the host then could not. */
    @Test
    void socketsOfFamiliesNoJobUsesAreRefused() throws Exception {
        ExecutionResult filtered = Runs.run(engine, ExecutionRequest.of("python", SOCKETS));
        assertEquals("succeeded", filtered.status(), describe(filtered));
        String unfiltered = runInBubblewrapAlone(filtered.environment().orElseThrow().storePath(), SOCKETS);

        // Bluetooth, AF_ALG and AF_KEY are modules this host has not loaded; another host may answer ok
        assertEquals("""
                AF_VSOCK stream ok
                AF_VSOCK bind 23456 ok
                AF_PACKET raw EPERM
                AF_PACKET dgram EPERM
                AF_BLUETOOTH EAFNOSUPPORT
                AF_ALG EAFNOSUPPORT
                AF_KEY EAFNOSUPPORT
                AF_NETLINK audit ok
                AF_NETLINK uevent ok
                AF_NETLINK generic ok
                AF_NETLINK route ok
                AF_INET stream ok
                AF_INET6 dgram ok
                AF_UNIX socketpair ok
                AF_VSOCK socketpair ENOTSUP
                getaddrinfo localhost ['127.0.0.1']
                if_nameindex [(1, 'lo')]
                """, unfiltered, "without the filter (the attacks are real)");
        assertEquals("""
                AF_VSOCK stream EAFNOSUPPORT
                AF_VSOCK bind 23456 not tried
                AF_PACKET raw EAFNOSUPPORT
                AF_PACKET dgram EAFNOSUPPORT
                AF_BLUETOOTH EAFNOSUPPORT
                AF_ALG EAFNOSUPPORT
                AF_KEY EAFNOSUPPORT
                AF_NETLINK audit EPROTONOSUPPORT
                AF_NETLINK uevent EPROTONOSUPPORT
                AF_NETLINK generic EPROTONOSUPPORT
                AF_NETLINK route ok
                AF_INET stream ok
                AF_INET6 dgram ok
                AF_UNIX socketpair ok
                AF_VSOCK socketpair EAFNOSUPPORT
                getaddrinfo localhost ['127.0.0.1']
                if_nameindex [(1, 'lo')]
                """, stdout(filtered), describe(filtered));
    }

    @Test
    void everyProcessOfTheRunIsFilteredIncludingBubblewrapsInit() {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("python", """
                import os
                def mode(pid):
                    for line in open('/proc/%s/status' % pid):
                        if line.startswith('Seccomp:'):
                            return line.split()[1]
                child = os.fork()
                if child == 0:
                    os._exit(0)
                print(sorted({mode(p) for p in os.listdir('/proc') if p.isdigit()}), mode('self'))
                os.waitpid(child, 0)
                """));
        // 2 = SECCOMP_MODE_FILTER: code that ptraces bubblewrap's init cannot borrow an unfiltered process
        assertEquals("['2'] 2\n", stdout(result), describe(result));
    }

    @Test
    void runtimesStillWorkUnderTheFilter() {
        ExecutionResult node = Runs.run(engine, ExecutionRequest.of("node", """
                const fs = require('fs');
                fs.writeFileSync('/tmp/x', 'hello');
                fs.readFile('/tmp/x', 'utf8', (err, data) => console.log(err ? err.code : data));
                """));
        assertEquals("hello\n", stdout(node), describe(node));
        ExecutionResult bash = Runs.run(engine, ExecutionRequest.of("bash", "echo $((6 * 7)) | cat; stty size < /dev/null 2>/dev/null; echo done"));
        assertEquals("42\ndone\n", stdout(bash), describe(bash));
    }

    /** The engine's bubblewrap options without the filter, as an unprivileged host user, no cgroup. */
    private static String runInBubblewrapAlone(String env, String code) throws Exception {
        Path job = Files.createTempDirectory("nixexec-seccomp-baseline-");
        try {
            Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path codeDir = Files.createDirectories(job.resolve("code"));
            Files.writeString(codeDir.resolve("main.py"), code);
            Path etc = Files.createDirectories(job.resolve("etc"));
            for (Map.Entry<String, String> f : BwrapArguments.etcFiles(java.util.List.of("10.0.2.3")).entrySet()) {
                Files.writeString(etc.resolve(f.getKey()), f.getValue());
            }
            Limits limits = new Limits(Duration.ofSeconds(20), 256L << 20, 64, 0, 8L << 20, 32L << 20, 32L << 20, 65536);
            SandboxSpec spec = Specs.fresh(env, List.of(), "main.py", code.getBytes(StandardCharsets.UTF_8),
                    List.of("python3"), Map.of(), new byte[0], limits, false);
            List<String> argv = new ArrayList<>();
            if ("root".equals(System.getProperty("user.name"))) {
                argv.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"));
            }
            argv.addAll(Specs.bwrapArgv(Path.of("bwrap"), spec, codeDir, etc, StoreMount.WHOLE_STORE));
            assertTrue(!argv.contains("--seccomp"), argv.toString());
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            return out;
        } finally {
            ChildStreams.deleteTree(job);
        }
    }
}

package dev.nixexec.sandbox;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.config.StatePaths;
import dev.nixexec.nix.Environment;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.OwnProcesses;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionEvent;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * An independent battery of attacks, written as an adversary would try them, each asserting the
 * contained outcome exactly. Attacks that currently succeed are kept, {@link Disabled} with the
 * finding, so the build stays green and the weakness stays on record.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class AdversarialSandboxTest {

    /** Put in the argv of every process an attack tries to keep alive, so the host can look for it. */
    private static final String MARKER = "nixexec-adversarial";

    /** Everything the sandbox's root holds; anything else would be the host showing through. */
    private static final String SANDBOX_ROOT = "['bin', 'code', 'dev', 'etc', 'nix', 'proc', 'tmp', 'usr', 'workspace']";

    private static final Limits SMALL = new Limits(Duration.ofSeconds(10), 256L << 20, 64, 0, 8L << 20,
            32L << 20, 64L << 20, 64 * 1024);

    @Inject
    ExecutionEngine engine;

    @Inject
    NixExecConfig config;

    @Inject
    StatePaths paths;

    @Inject
    HostUids uids;

    @Inject
    EnvironmentCache environments;

    private ExecutionResult run(String language, String code) {
        return Runs.run(engine, ExecutionRequest.of(language, code));
    }

    private ExecutionResult run(String language, String code, Limits limits) {
        ExecutionEngine.ValidatedRequest request = engine.validate(ExecutionRequest.of(language, code)).withLimits(limits);
        return engine.execute(request, () -> true, environment -> true).filter(e -> e instanceof ExecutionEvent.Finished)
                .map(e -> ((ExecutionEvent.Finished) e).result()).toUni().await().atMost(Duration.ofMinutes(2));
    }

    /** The test's attack processes (the marker their code put in their argv), among those this JVM started. */
    private OwnProcesses attackers;

    @BeforeEach
    void watchForAttackers() {
        attackers = OwnProcesses.watch(p -> OwnProcesses.commandLine(p).contains(MARKER)
                && !OwnProcesses.commandLine(p).contains("/code/main"));
    }

    /** Waits a little for the kernel to finish tearing a namespace down, then lists what is left. */
    private List<ProcessHandle> survivorsAfterGrace() throws InterruptedException {
        return attackers.aliveAfter(Duration.ofSeconds(1));
    }

    @AfterEach
    void noAttackerProcessOutlivesItsTest() throws InterruptedException {
        try (OwnProcesses watched = attackers) {
            List<ProcessHandle> left = survivorsAfterGrace();
            // Only processes this JVM started, found by the marker our code put in their argv, by handle.
            left.forEach(ProcessHandle::destroyForcibly);
            assertTrue(left.isEmpty(), "attack processes outlived their run: " + OwnProcesses.describe(left));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // /proc and the filesystem view

    @Test
    void everyProcRootAndSymlinkTrickEndsInTheSandboxRoot() {
        ExecutionResult result = run("python", """
                import os
                os.symlink('/', '/workspace/up')
                os.symlink('/proc/1/root', '/workspace/initroot')
                os.symlink('../../../../../../..', '/workspace/dots')
                os.symlink('/proc/self/cwd/../../../..', '/workspace/cwdup')
                views = ['/proc/1/root', '/proc/self/root', '/proc/1/root/..', '/proc/1/cwd/../..',
                         '/workspace/up', '/workspace/initroot', '/workspace/initroot/..', '/workspace/dots',
                         '/workspace/cwdup', '/code/..', '/nix/store/../..']
                seen = set()
                for v in views:
                    seen.add(str(sorted(os.listdir(v))))
                for p in os.listdir('/proc'):
                    if p.isdigit():
                        try:
                            seen.add(str(sorted(os.listdir('/proc/%s/root' % p))))
                        except OSError:
                            pass
                print(len(seen))
                print(seen.pop())
                print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()) == [1, 2])
                """);
        assertEquals("1\n" + SANDBOX_ROOT + "\nTrue\n", stdout(result), describe(result));
    }

    @Test
    void mountsBindNothingButTheStoreThisRunsOwnFilesAndTheRunsSharedEtc() throws Exception {
        ExecutionResult result = run("python", """
                for line in open('/proc/self/mountinfo'):
                    left, right = line.split(' - ')
                    f = left.split()
                    print(right.split()[0], f[4], f[3])
                """);
        assertEquals("succeeded", result.status(), describe(result));
        Set<String> mountPoints = new TreeSet<>();
        Set<String> runDirs = new TreeSet<>();
        Set<String> etcDirs = new TreeSet<>();
        String jobs = paths.jobsDir().toString() + "/";
        String views = paths.storeViewsDir().toString() + "/";
        for (String line : stdout(result).strip().split("\n")) {
            String[] f = line.split(" ");
            String type = f[0];
            String mountPoint = f[1];
            String source = f[2];
            mountPoints.add(mountPoint);
            if (List.of("tmpfs", "proc", "devpts", "devtmpfs").contains(type)) {
                continue;
            }
            // A bind from the host's disk: only the store (its closure's view, by default) and
            // this run's own directory may appear.
            if (source.equals("/nix/store") || source.startsWith(views) && !source.substring(views.length()).contains("/")) {
                assertEquals("/nix/store", mountPoint, line);
                continue;
            }
            assertTrue(source.startsWith(jobs), "a host path other than the store and the run directory is bound: " + line);
            String rest = source.substring(jobs.length());
            String dir = rest.substring(0, rest.indexOf('/'));
            if (mountPoint.startsWith("/etc/")) {
                // the same files for every run, written once, writable by none of them
                assertTrue(dir.startsWith("etc-"), line);
                etcDirs.add(dir);
                continue;
            }
            runDirs.add(dir);
            assertEquals("/code", mountPoint, line);
        }
        assertEquals(1, etcDirs.size(), "/etc files from more than one directory: " + etcDirs);
        assertEquals(new TreeSet<>(List.of("/", "/code", "/dev", "/dev/full", "/dev/null", "/dev/pts", "/dev/random",
                "/dev/shm", "/dev/tty", "/dev/urandom", "/dev/zero", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf",
                "/etc/passwd", "/nix/store", "/proc", "/tmp", "/workspace")), mountPoints);
        assertEquals(1, runDirs.size(), "binds from more than one run directory: " + runDirs);
        // it goes just after the run's result, in the background
        java.nio.file.Path runDir = paths.jobsDir().resolve(runDirs.iterator().next());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Files.exists(runDir) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(Files.exists(runDir), "the run directory outlived the run");
        assertFalse(stdout(result).contains(System.getProperty("user.dir")), "the service's working directory shows");
        assertFalse(stdout(result).contains(paths.stateDir().toString()), "the service's state directory shows");
    }

    @Test
    void kernelKnobsInProcAreNotWritableAndKernelMemoryIsNotReadable() throws Exception {
        String corePattern = Files.readString(Path.of("/proc/sys/kernel/core_pattern"));
        ExecutionResult result = run("python", """
                import os, socket
                for path, value in [('/proc/sys/kernel/hostname', 'pwned'), ('/proc/sys/kernel/core_pattern', '|/tmp/x'),
                                    ('/proc/sys/vm/drop_caches', '3'), ('/proc/sys/kernel/panic', '1'),
                                    ('/proc/sys/user/max_user_namespaces', '100'), ('/proc/sysrq-trigger', 'c'),
                                    ('/proc/self/uid_map', '0 0 1'), ('/proc/self/setgroups', 'allow'),
                                    ('/proc/1/uid_map', '0 0 1'), ('/proc/self/attr/current', 'unconfined')]:
                    try:
                        with open(path, 'w') as f:
                            f.write(value)
                        print(path, 'WRITTEN')
                    except OSError:
                        print(path, 'refused')
                for path in ['/proc/kcore', '/dev/core', '/proc/kmsg', '/proc/1/mem', '/sys/kernel', '/sys/fs/cgroup']:
                    try:
                        with open(path, 'rb') as f:
                            f.read(64)
                        print(path, 'READ')
                    except OSError:
                        print(path, 'refused')
                print(socket.gethostname())
                """);
        assertEquals("""
                /proc/sys/kernel/hostname refused
                /proc/sys/kernel/core_pattern refused
                /proc/sys/vm/drop_caches refused
                /proc/sys/kernel/panic refused
                /proc/sys/user/max_user_namespaces refused
                /proc/sysrq-trigger refused
                /proc/self/uid_map refused
                /proc/self/setgroups refused
                /proc/1/uid_map refused
                /proc/self/attr/current refused
                /proc/kcore refused
                /dev/core refused
                /proc/kmsg refused
                /proc/1/mem refused
                /sys/kernel refused
                /sys/fs/cgroup refused
                sandbox
                """, stdout(result), describe(result));
        assertEquals(corePattern, Files.readString(Path.of("/proc/sys/kernel/core_pattern")));
    }

    @Test
    void procAndSysGiveNoHandleOnTheHost() {
        ExecutionResult result = run("python", """
                import os, errno
                def attempt(label, fn):
                    try:
                        fn()
                        print(label, 'DONE')
                    except OSError as e:
                        print(label, errno.errorcode[e.errno])
                print('/sys', os.path.exists('/sys'))
                addresses = {l.split()[0] for l in open('/proc/kallsyms')}
                print('kallsyms addresses', addresses)
                print('net devices', sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]))
                print('pid 1', open('/proc/1/cmdline', 'rb').read().split(b'\\0')[0].rsplit(b'/', 1)[-1], repr(open('/proc/1/environ').read()))
                print('cgroup', open('/proc/self/cgroup').read().split(':')[-1].strip())
                def write(path, data):
                    fd = os.open(path, os.O_WRONLY)
                    try:
                        assert os.write(fd, data) == len(data)
                    finally:
                        os.close(fd)
                print('oom_score_adj', open('/proc/self/oom_score_adj').read().strip())
                attempt('oom_score_adj -1000', lambda: write('/proc/self/oom_score_adj', b'-1000'))
                attempt('ns_last_pid', lambda: write('/proc/sys/kernel/ns_last_pid', b'100'))
                # bubblewrap's init is ours to inspect (same uid); it must hold nothing but pipes and its eventfd
                print('pid 1 fds', sorted({os.readlink('/proc/1/fd/' + fd).split(':')[0] for fd in os.listdir('/proc/1/fd')}))
                attempt('pid 1 mem write', lambda: write('/proc/1/mem', b'x'))
                attempt('core_pattern', lambda: write('/proc/sys/kernel/core_pattern', b'|/bin/sh'))
                """);
        assertEquals("""
                /sys False
                kallsyms addresses {'0000000000000000'}
                net devices ['lo']
                pid 1 b'bwrap' ''
                cgroup /
                oom_score_adj 0
                oom_score_adj -1000 EACCES
                ns_last_pid EPERM
                pid 1 fds ['anon_inode', 'pipe']
                pid 1 mem write EIO
                core_pattern EACCES
                """, stdout(result), describe(result));
    }

    @Test
    void onlyStdioIsOpenWhenTheCodeStarts() {
        // The launcher opens the bubblewrap options on fd 3 and the seccomp program on fd 4; neither may reach the code.
        ExecutionResult result = run("python", """
                import os
                print(sorted(int(fd) for fd in os.listdir('/proc/self/fd'))[:3])
                for fd in range(3, 1024):
                    try:
                        os.fstat(fd)
                        print('open', fd, os.readlink('/proc/self/fd/%d' % fd))
                    except OSError:
                        pass
                """);
        assertEquals("[0, 1, 2]\n", stdout(result), describe(result));
    }

    @Test
    void symlinksPlantedInTheRunLeadNowhereOnTheHost() throws Exception {
        Path canaryDir = Files.createTempDirectory("nixexec-canary-");
        Path canary = canaryDir.resolve("canary");
        Files.writeString(canary, "untouched");
        Files.setPosixFilePermissions(canaryDir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(canary, PosixFilePermissions.fromString("rw-rw-rw-"));
        try {
            ExecutionResult result = run("python", """
                    import os, errno
                    def attempt(label, fn):
                        try:
                            fn()
                            print(label, 'DONE')
                        except OSError as e:
                            print(label, errno.errorcode[e.errno])
                    for where in ('/tmp', '/workspace', '/dev/shm'):
                        os.symlink('CANARY', where + '/link')
                        attempt(where + ' write through', lambda: open(where + '/link', 'w').write('pwned'))
                        attempt(where + ' read through', lambda: open(where + '/link').read())
                    os.symlink('/code/main.py', '/workspace/code')
                    attempt('write code through link', lambda: open('/workspace/code', 'a').write('#'))
                    attempt('hard link code', lambda: os.link('/code/main.py', '/workspace/hard'))
                    attempt('rename code', lambda: os.rename('/code/main.py', '/workspace/moved'))
                    attempt('replace /code', lambda: os.rename('/workspace', '/code'))
                    attempt('symlink over /etc/passwd', lambda: os.symlink('/workspace/x', '/etc/passwd'))
                    """.replace("CANARY", canary.toString()));
            assertEquals("""
                    /tmp write through ENOENT
                    /tmp read through ENOENT
                    /workspace write through ENOENT
                    /workspace read through ENOENT
                    /dev/shm write through ENOENT
                    /dev/shm read through ENOENT
                    write code through link EACCES
                    hard link code EXDEV
                    rename code EXDEV
                    replace /code EROFS
                    symlink over /etc/passwd EEXIST
                    """, stdout(result), describe(result));
            assertEquals("untouched", Files.readString(canary));
            try (var left = Files.list(canaryDir)) {
                assertEquals(List.of(canary), left.toList(), "the run made files in a host directory");
            }
        } finally {
            ChildStreams.deleteTree(canaryDir);
        }
    }

    @Test
    void aRunRacingAnotherRunsDirectoryFindsNothing() throws Exception {
        // The holder learns its own host run directory from mountinfo, prints it, and keeps rewriting its workspace.
        String holder = """
                import os, time
                src = [l.split(' - ')[0].split()[3] for l in open('/proc/self/mountinfo') if l.split()[4] == '/code'][0]
                print(src.rsplit('/', 1)[0], flush=True)
                deadline = time.time() + 20
                n = 0
                while time.time() < deadline:
                    with open('/workspace/state', 'w') as f:
                        f.write(str(n))
                    n += 1
                """;
        CountDownLatch ready = new CountDownLatch(1);
        StringBuilder holderOut = new StringBuilder();
        Cancellable holding = Runs.execute(engine, ExecutionRequest.of("python", holder)).subscribe().with(event -> {
            if (event instanceof ExecutionEvent.Output out) {
                synchronized (holderOut) {
                    holderOut.append(new String(out.data(), StandardCharsets.UTF_8));
                    if (holderOut.indexOf("\n") >= 0) {
                        ready.countDown();
                    }
                }
            }
        }, e -> ready.countDown());
        try {
            assertTrue(ready.await(60, TimeUnit.SECONDS), "the holder never started");
            String holderDir;
            synchronized (holderOut) {
                holderDir = holderOut.toString().strip();
            }
            assertTrue(holderDir.startsWith(paths.jobsDir().toString() + "/"), holderDir);
            Path onHost = Path.of(holderDir);
            // on the host: the holder's directory is its own uid's alone (or the service's, without per-run uids)
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(onHost)));
            ExecutionResult racer = run("python", """
                    import os, errno
                    found = []
                    targets = ['HOLDER', 'HOLDER/code', 'HOLDER/code/main.py', 'HOLDER/options', 'HOLDER/seccomp']
                    for round in range(200):
                        for t in targets:
                            try:
                                os.stat(t)
                                found.append(t)
                            except OSError as e:
                                if e.errno != errno.ENOENT:
                                    found.append('%s %s' % (t, errno.errorcode[e.errno]))
                        for pid in os.listdir('/proc'):
                            if pid.isdigit():
                                try:
                                    open('/proc/%s/root/workspace/state' % pid).read()
                                    if pid not in ('1', str(os.getpid())):
                                        found.append('pid ' + pid)
                                except OSError:
                                    pass
                        try:
                            open('/workspace/state').read()
                            found.append('own workspace holds the state')
                        except OSError:
                            pass
                    print('found', sorted(set(found)))
                    """.replace("HOLDER", holderDir), SMALL);
            assertEquals("found []\n", stdout(racer), describe(racer));
            assertTrue(Files.exists(onHost.resolve("code")), "the holder's directory went away during the race");
        } finally {
            holding.cancel();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Devices and terminals

    @Test
    void devicesAreMinimalAndNoNodeCanBeMade() {
        ExecutionResult result = run("python", """
                import os, stat
                print(sorted(os.listdir('/dev')))
                print(sorted(os.listdir('/dev/pts')))
                for d in ['/dev/mem', '/dev/kmem', '/dev/port', '/dev/kmsg', '/dev/vda', '/dev/sda', '/dev/nvme0n1',
                          '/dev/fuse', '/dev/kvm', '/dev/net/tun', '/dev/loop0', '/dev/loop-control', '/dev/console']:
                    print(d, os.path.exists(d))
                for where in ['/tmp', '/workspace', '/dev/shm', '/dev']:
                    for name, mode, dev in [('mem', stat.S_IFCHR, os.makedev(1, 1)), ('vda', stat.S_IFBLK, os.makedev(254, 0))]:
                        try:
                            os.mknod(where + '/' + name, mode | 0o666, dev)
                            print(where, name, 'MADE')
                        except OSError:
                            print(where, name, 'refused')
                # a pty of our own is fine; it must come from a private devpts, not the host's
                m, s = os.openpty()
                print(sorted(os.listdir('/dev/pts')), os.ttyname(s))
                """);
        String devices = "['core', 'fd', 'full', 'null', 'ptmx', 'pts', 'random', 'shm', 'stderr', 'stdin', 'stdout', "
                + "'tty', 'urandom', 'zero']\n['ptmx']\n";
        StringBuilder expected = new StringBuilder(devices);
        for (String d : List.of("/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/vda", "/dev/sda", "/dev/nvme0n1",
                "/dev/fuse", "/dev/kvm", "/dev/net/tun", "/dev/loop0", "/dev/loop-control", "/dev/console")) {
            expected.append(d).append(" False\n");
        }
        for (String where : List.of("/tmp", "/workspace", "/dev/shm", "/dev")) {
            expected.append(where).append(" mem refused\n").append(where).append(" vda refused\n");
        }
        expected.append("['0', 'ptmx'] /dev/pts/0\n");
        assertEquals(expected.toString(), stdout(result), describe(result));
    }

    @Test
    void noTerminalToInjectInto() {
        ExecutionResult result = run("python", """
                import os, ctypes, errno
                libc = ctypes.CDLL(None, use_errno=True)
                # --new-session: the session was made inside the sandbox (sid 1), not inherited from the host (sid 0)
                print('sid', os.getsid(0))
                TIOCSTI = 0x5412
                for fd in (0, 1, 2):
                    r = libc.ioctl(fd, TIOCSTI, ctypes.c_char_p(b'x'))
                    print(fd, r, errno.errorcode[ctypes.get_errno()])
                try:
                    os.open('/dev/tty', os.O_RDWR)
                    print('tty OPENED')
                except OSError as e:
                    print('tty', errno.errorcode[e.errno])
                """);
        // EPERM: the seccomp filter refuses TIOCSTI before the kernel looks at the fd (was ENOTTY: pipes)
        assertEquals("sid 1\n0 -1 EPERM\n1 -1 EPERM\n2 -1 EPERM\ntty ENXIO\n", stdout(result), describe(result));
    }

    // ---------------------------------------------------------------------------------------------
    // Kernel interfaces that need privilege

    @Test
    void privilegedKernelInterfacesAreRefused() {
        ExecutionResult result = run("python", """
                import ctypes, os
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                AT_FDCWD = -100
                buf = ctypes.create_string_buffer(256)
                tries = [
                    ('fsopen tmpfs', 430, ctypes.c_char_p(b'tmpfs'), 0),
                    ('open_tree clone /', 428, AT_FDCWD, ctypes.c_char_p(b'/'), 1),
                    ('pivot_root', 155, ctypes.c_char_p(b'/tmp'), ctypes.c_char_p(b'/tmp')),
                    ('mount bind /', 165, ctypes.c_char_p(b'/'), ctypes.c_char_p(b'/tmp'), None, 4096, None),
                    ('umount /code', 166, ctypes.c_char_p(b'/code'), 2),
                    ('chroot', 161, ctypes.c_char_p(b'/tmp')),
                    ('setns own mnt', 308, os.open('/proc/1/ns/mnt', os.O_RDONLY), 0),
                    ('unshare user', 272, 0x10000000),
                    ('clone newuser', 56, 0x10000000 | 17, 0, 0, 0, 0),
                    ('sethostname', 170, ctypes.c_char_p(b'x'), 1),
                    ('setuid 0', 105, 0),
                    ('setgroups', 116, 0, None),
                    ('init_module', 175, buf, 16, ctypes.c_char_p(b'')),
                    ('kexec_load', 246, 0, 0, None, 0),
                    ('reboot', 169, 0xfee1dead, 672274793, 0x4321fedc, None),
                    ('settimeofday', 164, buf, None),
                    ('iopl', 172, 3),
                    ('ioperm', 173, 0, 1024, 1),
                    ('swapon', 167, ctypes.c_char_p(b'/tmp'), 0),
                    ('acct', 163, ctypes.c_char_p(b'/tmp/acct')),
                    ('bpf prog load', 321, 5, buf, 128),
                    ('perf_event_open cpu-wide', 298, buf, -1, 0, -1, 0),
                    ('userfaultfd kernel faults', 323, 0),
                    ('keyctl join session', 250, 1, ctypes.c_char_p(b'_ses')),
                ]
                for name, nr, *args in tries:
                    r = libc.syscall(nr, *args)
                    print(name, 'ALLOWED' if r >= 0 else 'refused')
                status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)
                print([status[k].strip() for k in ('NoNewPrivs', 'CapInh', 'CapPrm', 'CapEff', 'CapAmb')])
                """);
        String out = stdout(result);
        assertFalse(out.contains("ALLOWED"), describe(result));
        assertEquals(25, out.lines().count(), describe(result));
        assertTrue(out.endsWith("['1', '0000000000000000', '0000000000000000', '0000000000000000', '0000000000000000']\n"),
                describe(result));
    }

    // ---------------------------------------------------------------------------------------------
    // Other runs

    @Test
    void aConcurrentRunCannotReachAnotherRunsSecrets() throws Exception {
        String nonce = "s3cr3t-" + UUID.randomUUID();
        String holder = """
                import os, socket, ctypes, time, sys
                secret = os.environ['SECRET']
                for p in ('/tmp/secret', '/workspace/secret', '/dev/shm/secret'):
                    open(p, 'w').write(secret)
                os.chmod('/tmp', 0o777)
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                key = libc.syscall(248, b'user', b'nixexec-adv', secret.encode(), len(secret), -3)
                shm = libc.shmget(0x4e58, 4096, 0o1666)
                addr = ctypes.c_void_p(libc.shmat(shm, None, 0) if shm >= 0 else 0)
                srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                srv.bind('\\0nixexec-adv-secret')
                srv.listen(8)
                srv.settimeout(0.1)
                print('ready', key, shm, flush=True)
                deadline = time.time() + 20
                while time.time() < deadline:
                    try:
                        c, _ = srv.accept()
                        print('CONNECTED', flush=True)
                        c.sendall(secret.encode())
                    except socket.timeout:
                        pass
                """;
        CountDownLatch ready = new CountDownLatch(1);
        StringBuilder holderOut = new StringBuilder();
        CompletableFuture<ExecutionResult> holderResult = new CompletableFuture<>();
        Cancellable holding = Runs.execute(engine, ExecutionRequest.of("python", holder).withEnv(Map.of("SECRET", nonce)))
                .subscribe().with(event -> {
                    if (event instanceof ExecutionEvent.Output out) {
                        synchronized (holderOut) {
                            holderOut.append(new String(out.data(), StandardCharsets.UTF_8));
                            // the whole line: unbuffered, print writes each of its words on its own
                            if (holderOut.toString().matches("(?s).*ready \\S+ \\S+\n.*")) {
                                ready.countDown();
                            }
                        }
                    } else if (event instanceof ExecutionEvent.Finished finished) {
                        holderResult.complete(finished.result());
                    }
                }, holderResult::completeExceptionally);
        try {
            assertTrue(ready.await(60, TimeUnit.SECONDS), "the holder never got ready: " + holderOut);
            String[] words;
            synchronized (holderOut) {
                words = holderOut.toString().strip().split("\\s+");
            }
            String keySerial = words[1];
            // The searcher's own code must not contain the secret, or it would find itself.
            String reversed = new StringBuilder(nonce).reverse().toString();
            ExecutionResult search = run("python", """
                    import os, socket, ctypes, errno
                    secret = 'REVERSED'[::-1].encode()
                    found = []
                    skip = ('/proc', '/nix', '/sys', '/dev')  # /dev: ptmx would block a read
                    walked = [os.path.join(r, f) for r, dirs, files in os.walk('/')
                              if not dirs.__setitem__(slice(None), [d for d in dirs if os.path.join(r, d) not in skip])
                              for f in files]
                    for p in walked + ['/dev/shm/' + f for f in os.listdir('/dev/shm')]:
                        if True:
                            try:
                                if secret in open(p, 'rb').read(1 << 20):
                                    found.append(p)
                            except OSError:
                                pass
                    for pid in os.listdir('/proc'):
                        if pid.isdigit():
                            for f in ('environ', 'cmdline'):
                                try:
                                    if secret in open('/proc/%s/%s' % (pid, f), 'rb').read():
                                        found.append('/proc/%s/%s' % (pid, f))
                                except OSError:
                                    pass
                    if b'nixexec-adv-secret' in open('/proc/net/unix', 'rb').read():
                        found.append('/proc/net/unix')
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        s.connect('\\0nixexec-adv-secret')
                        found.append('abstract socket ' + s.recv(100).decode())
                    except OSError:
                        pass
                    libc = ctypes.CDLL(None, use_errno=True)
                    libc.syscall.restype = ctypes.c_long
                    if libc.shmget(0x4e58, 0, 0) >= 0:
                        found.append('sysv shm')
                    buf = ctypes.create_string_buffer(256)
                    for op in (6, 11):  # KEYCTL_DESCRIBE, KEYCTL_READ on the holder's key serial
                        if libc.syscall(250, op, KEY, buf, 256) >= 0:
                            found.append('key %d: %r' % (op, buf.raw[:64]))
                    if b'nixexec-adv' in open('/proc/keys', 'rb').read():
                        found.append('/proc/keys')
                    for pid in range(3, 4096):
                        try:
                            os.kill(pid, 0)
                            found.append('pid %d' % pid)
                        except OSError:
                            pass
                    print('found', found)
                    """.replace("REVERSED", reversed).replace("KEY", keySerial), SMALL);
            assertEquals("found []\n", stdout(search), describe(search));
            // a connection the holder heard late still counts
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                synchronized (holderOut) {
                    assertFalse(holderOut.toString().contains("CONNECTED"), "the other run reached the holder: " + holderOut);
                }
            });
            synchronized (holderOut) {
                // key -1: the seccomp filter refuses keyrings (SeccompSandboxTest); the search tries the serial anyway
                assertTrue(holderOut.toString().matches("ready -1 \\d+\\s*"), "the holder's set-up failed: " + holderOut);
            }
            assertFalse(holderResult.isDone(), "the holder ended before the search: " + holderResult.getNow(null));
        } finally {
            holding.cancel();
        }
    }

    /** Keyrings used to be open to runs (a fresh one each run); the seccomp filter now refuses them outright. */
    @Test
    void keyringsAreClosedToRuns() {
        ExecutionResult result = run("python", """
                import ctypes, errno
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                print(libc.syscall(250, 22, -1, -3), errno.errorcode.get(ctypes.get_errno()))  # KEYCTL_GET_PERSISTENT
                for ring in (-3, -4, -5):
                    print(libc.syscall(248, b'user', b'nixexec-adv-carry', b'secret', 6, ring), errno.errorcode.get(ctypes.get_errno()))
                print(b'nixexec-adv-carry' in open('/proc/keys', 'rb').read())
                """);
        assertEquals("-1 EPERM\n-1 EPERM\n-1 EPERM\n-1 EPERM\nFalse\n", stdout(result), describe(result));
    }

    // ---------------------------------------------------------------------------------------------
    // The launcher's inputs: stdin and environment

    @Test
    void stdinCannotSpoofTheLaunchersCpuLine() {
        long soft = config.sandbox().timeout().toSeconds();
        long hard = soft + 1;
        String stdin = "0\n\n; touch /tmp/pwned #\n$(id) `id`\n--bind / /host\nunlimited";
        ExecutionResult result = Runs.run(engine, new ExecutionRequest("python", """
                import sys, os, resource
                print(repr(sys.stdin.read()))
                print(resource.getrlimit(resource.RLIMIT_CPU))
                print(os.path.exists('/tmp/pwned'), os.path.exists('/host'))
                """, List.of(), Map.of(), stdin, Optional.empty(), false));
        assertEquals("'0\\n\\n; touch /tmp/pwned #\\n$(id) `id`\\n--bind / /host\\nunlimited'\n(" + soft + ", " + hard
                + ")\nFalse False\n", stdout(result), describe(result));
    }

    @Test
    void environmentValuesCannotBecomeSandboxOptions() {
        Map<String, String> env = Map.of(
                "INJECT_OPTION", "--bind / /host",
                "INJECT_LINES", "x\n--bind\n/\n/host\n--",
                "IFS", "/",
                "BASH_ENV", "/code/main.py",
                "SHELLOPTS", "xtrace",
                "LONG_VALUE", "v".repeat(60_000));
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("python", """
                import os
                for k in sorted(['INJECT_OPTION', 'INJECT_LINES', 'IFS', 'BASH_ENV', 'SHELLOPTS']):
                    print(k, repr(os.environ[k]))
                print(len(os.environ['LONG_VALUE']), os.path.exists('/host'), sorted(os.listdir('/')))
                """).withEnv(env));
        assertEquals("""
                BASH_ENV '/code/main.py'
                IFS '/'
                INJECT_LINES 'x\\n--bind\\n/\\n/host\\n--'
                INJECT_OPTION '--bind / /host'
                SHELLOPTS 'xtrace'
                60000 False %s
                """.formatted(SANDBOX_ROOT), stdout(result), describe(result));
        // A NUL would split one value into several options in the NUL-separated options file.
        assertThrows(InvalidRequestException.class, () -> engine.validate(
                ExecutionRequest.of("python", "print(1)").withEnv(Map.of("X", "a\0--bind\0/\0/host"))));
    }

    // ---------------------------------------------------------------------------------------------
    // Resources and output

    @Test
    void threadsCountAgainstTheProcessLimit() {
        ExecutionResult result = run("python", """
                import threading, time
                n = 0
                try:
                    for _ in range(1000):
                        t = threading.Thread(target=time.sleep, args=(20,), daemon=True)
                        t.start()
                        n += 1
                except RuntimeError:
                    print('refused after', n, flush=True)
                import os
                os._exit(0)
                """, SMALL);
        assertTrue(stdout(result).startsWith("refused after "), describe(result));
        int started = Integer.parseInt(stdout(result).strip().replaceAll("\\D+", ""));
        assertTrue(started < SMALL.maxProcesses(), "threads started: " + started);
        assertTrue(result.durationMs() < 8_000, describe(result));
    }

    @Test
    void devShmIsBounded() {
        ExecutionResult result = run("python", """
                import os
                try:
                    with open('/dev/shm/fill', 'wb') as f:
                        for _ in range(64):
                            f.write(b'x' * (1 << 20))
                            f.flush()
                    print('NOT BOUNDED')
                except OSError as e:
                    print('errno', e.errno)
                print(os.path.getsize('/dev/shm/fill') <= 16 * 1024 * 1024)
                """);
        assertEquals("errno 28\nTrue\n", stdout(result), describe(result));
    }

    @Test
    void binaryOutputIsKeptByteForByte() {
        ExecutionResult result = run("python", """
                import sys
                data = b'\\x00\\xff\\xfe\\xc3(\\xed\\xa0\\x80\\x1b[2J\\x00end'
                sys.stdout.buffer.write(data)
                sys.stderr.buffer.write(data[::-1])
                """);
        byte[] expected = {0, (byte) 0xff, (byte) 0xfe, (byte) 0xc3, '(', (byte) 0xed, (byte) 0xa0, (byte) 0x80, 0x1b, '[',
                '2', 'J', 0, 'e', 'n', 'd'};
        byte[] reversed = new byte[expected.length];
        for (int i = 0; i < expected.length; i++) {
            reversed[i] = expected[expected.length - 1 - i];
        }
        assertEquals("succeeded", result.status(), describe(result));
        assertArrayEquals(expected, concat(result.stdout().head(), result.stdout().tail()));
        assertArrayEquals(reversed, concat(result.stderr().head(), result.stderr().tail()));
        assertEquals(expected.length, result.stdout().totalBytes());
        // The text form is still valid UTF-16 (invalid bytes become U+FFFD, NULs stay NULs).
        String text = result.stdout().text();
        assertTrue(text.startsWith("\0\uFFFD") && text.endsWith("\0end"), text);
        assertTrue(StandardCharsets.UTF_8.newEncoder().canEncode(text), text);
    }

    @Test
    void oneGiantLineWithoutNewlineIsBounded() {
        ExecutionResult result = run("python", """
                import sys
                for _ in range(48):
                    sys.stdout.buffer.write(b'a' * (1 << 16))
                sys.stdout.buffer.write(b'END')
                """, SMALL);
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals(48L * (1 << 16) + 3, result.stdout().totalBytes());
        assertTrue(result.stdout().truncated());
        assertEquals(SMALL.maxOutputBytes(), result.stdout().head().length + result.stdout().tail().length);
        String tail = new String(result.stdout().tail(), StandardCharsets.US_ASCII);
        assertTrue(tail.endsWith("aaaEND") && tail.indexOf("END") == tail.length() - 3, "tail ends " + tail.substring(tail.length() - 10));
        assertTrue(new String(result.stdout().head(), StandardCharsets.US_ASCII).chars().allMatch(c -> c == 'a'));
    }

    @Test
    void stderrFloodWhileStdoutIsIdleLosesNothingOnStdout() {
        ExecutionResult result = run("python", """
                import sys, os
                chunk = b'e' * (1 << 16)
                for _ in range(320):
                    os.write(2, chunk)
                print('done')
                """, SMALL);
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals("done\n", stdout(result));
        assertEquals(320L << 16, result.stderr().totalBytes());
        assertTrue(result.stderr().truncated());
        assertTrue(result.durationMs() < 8_000, describe(result));
    }

    // ---------------------------------------------------------------------------------------------
    // Time and lifetime

    @Test
    void aGrandchildCannotWriteAfterTheRunEnds() throws Exception {
        ExecutionResult result = run("python", """
                import os, sys
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        os.execv(sys.executable, [sys.executable, '-c',
                            'import time, os\\ntime.sleep(0.5)\\nfor _ in range(100):\\n    os.write(1, b"LATE\\\\n")\\n    time.sleep(0.05)',
                            'MARKER'])
                    os._exit(0)
                print('parent', flush=True)
                """.replace("MARKER", MARKER), SMALL);
        assertEquals("parent\n", stdout(result), describe(result));
        assertTrue(result.durationMs() < 3_000, describe(result));
    }

    @Test
    void codeThatIgnoresEverySignalStillEndsAtTheTimeout() {
        long start = System.nanoTime();
        ExecutionResult result = run("python", """
                import signal, time, os
                for s in range(1, 65):
                    if s not in (signal.SIGKILL, signal.SIGSTOP, 32, 33):
                        try:
                            signal.signal(s, signal.SIG_IGN)
                        except (OSError, ValueError):
                            pass
                signal.alarm(1)
                print('ignoring', flush=True)
                while True:
                    time.sleep(0.01)
                """, SMALL.withTimeout(Duration.ofSeconds(2)));
        assertEquals("timed_out", result.status(), describe(result));
        assertEquals("timeout", result.limitHit().orElseThrow().id());
        assertEquals("ignoring\n", stdout(result));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 6_000, describe(result));
    }

    /**
     * Ptrace bubblewrap's own init (pid 1 in the sandbox: same uid, dumpable) and clear its
     * die-with-parent signal, so killing bubblewrap no longer takes the pid namespace down. With
     * cgroups, the service's kill of the run's cgroup is the backstop.
     */
    private static final String UNTIE_INIT_AND_STAY = """
            import ctypes, os, sys, time
            libc = ctypes.CDLL(None, use_errno=True)
            libc.ptrace.restype = ctypes.c_long
            libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
            class Regs(ctypes.Structure):
                _fields_ = [(n, ctypes.c_ulonglong) for n in
                            'r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs'.split()]
            def inject(pid, nr, *args):
                if libc.ptrace(0x4206, pid, None, None) != 0:  # PTRACE_SEIZE
                    return 'seize refused'
                libc.ptrace(0x4207, pid, None, None)  # PTRACE_INTERRUPT
                os.waitpid(pid, 0x40000000)
                regs = Regs()
                libc.ptrace(12, pid, None, ctypes.byref(regs))
                saved = Regs.from_buffer_copy(regs)
                call = Regs.from_buffer_copy(regs)
                call.rip, call.rax, call.orig_rax = regs.rip - 2, nr, 2**64 - 1  # back onto its 'syscall' instruction
                for name, value in zip(('rdi', 'rsi', 'rdx'), args):
                    setattr(call, name, value)
                libc.ptrace(13, pid, None, ctypes.byref(call))
                libc.ptrace(9, pid, None, None)  # PTRACE_SINGLESTEP over the syscall
                os.waitpid(pid, 0x40000000)
                done = Regs()
                libc.ptrace(12, pid, None, ctypes.byref(done))
                saved.rip, saved.rax = saved.rip - 2, saved.orig_rax  # restart what it was waiting in
                libc.ptrace(13, pid, None, ctypes.byref(saved))
                libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
                return ctypes.c_longlong(done.rax).value
            print('prctl(PR_SET_PDEATHSIG, 0) in pid 1:', inject(1, 157, 1, 0), flush=True)
            if os.fork() == 0:
                os.setsid()
                os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', 'MARKER'])
            time.sleep(60)
            """.replace("MARKER", MARKER);

    @Test
    void untyingBubblewrapsInitDoesNotOutliveTheTimeout() throws Exception {
        ExecutionResult result = run("python", UNTIE_INIT_AND_STAY, SMALL.withTimeout(Duration.ofSeconds(2)));
        assertEquals("prctl(PR_SET_PDEATHSIG, 0) in pid 1: 0\n", stdout(result), describe(result));
        assertEquals("timed_out", result.status(), describe(result));
        assertEquals(List.of(), survivorsAfterGrace().stream().map(ProcessHandle::pid).toList(),
                "processes of the run outlived it");
    }

    /** Was a finding: without cgroups nothing killed the untied child; now every process of the run's uid is. */
    @Test
    void withoutCgroupsUntyingBubblewrapsInitDoesNotOutliveTheTimeout() throws Exception {
        NixExecConfig.Sandbox sandboxConfig = ConfigOverride.of(NixExecConfig.Sandbox.class, config.sandbox(),
                Map.of("cgroupParent", Optional.of("/proc/nixexec-adversarial-no-cgroups"), "warmLaunchers", 0,
                        "allowWithoutCgroups", true));
        NixExecConfig noCgroupConfig = ConfigOverride.of(NixExecConfig.class, config, Map.of("sandbox", sandboxConfig));
        Cgroups none = new Cgroups(noCgroupConfig);
        assertFalse(none.available());
        LauncherPool pool = new LauncherPool(noCgroupConfig, paths, none, uids);
        try {
            BwrapSandbox sandbox = new BwrapSandbox(noCgroupConfig, pool, new StoreViews(noCgroupConfig, paths), new UserModeNetwork(noCgroupConfig, new HostUids(noCgroupConfig)));
            Environment env = environments.get(EnvironmentRequest.of(Language.PYTHON, List.of()));
            SandboxSpec spec = Specs.fresh(env.storePath(), env.closure(), Language.PYTHON.fileName(),
                    UNTIE_INIT_AND_STAY.getBytes(StandardCharsets.UTF_8), Language.PYTHON.command(), Map.of(), new byte[0],
                    SMALL.withTimeout(Duration.ofSeconds(2)), false);
            SandboxResult result = sandbox.run(spec, RunGate.OPEN).filter(e -> e instanceof SandboxEvent.Exited)
                    .map(e -> ((SandboxEvent.Exited) e).result()).toUni().await().atMost(Duration.ofMinutes(1));
            assertTrue(result.timedOut(), result.stdout().text() + result.stderr().text());
            assertEquals("prctl(PR_SET_PDEATHSIG, 0) in pid 1: 0\n", result.stdout().text());
            List<ProcessHandle> left = survivorsAfterGrace();
            assertEquals(List.of(), left.stream().map(p -> p.pid() + " uid=" + p.info().user().orElse("?") + " "
                    + OwnProcesses.commandLine(p)).toList(), "the run's processes outlived its timeout");
        } finally {
            pool.close();
        }
    }

    /** Was a finding: only the soft CPU limit was lowered; now the hard one follows one second later. */
    @Test
    void cpuSecondsCannotBeRaisedOrIgnored() {
        Limits oneCpuSecond = new Limits(Duration.ofSeconds(10), SMALL.memoryBytes(), SMALL.maxProcesses(), 1,
                SMALL.maxFileBytes(), SMALL.tmpBytes(), SMALL.workspaceBytes(), SMALL.maxOutputBytes());
        String burn = """
                import resource, time
                def burn(seconds):
                    end = time.process_time() + seconds
                    while time.process_time() < end:
                        pass
                """;
        ExecutionResult raised = run("python", burn + """
                soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
                resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
                burn(3)
                print('burned 3 cpu seconds under a 1 second limit; hard limit', hard)
                """, oneCpuSecond);
        ExecutionResult ignored = run("python", burn + """
                import signal
                signal.signal(signal.SIGXCPU, signal.SIG_IGN)
                burn(3)
                print('burned 3 cpu seconds under a 1 second limit')
                """, oneCpuSecond);
        // the soft limit gives cpu_time (SIGXCPU); code that escapes it meets the hard limit's SIGKILL
        assertTrue(raised.limitHit().equals(Optional.of(LimitHit.CPU_TIME)) || raised.signal().equals(Optional.of(9)), describe(raised));
        assertEquals("", stdout(raised), describe(raised));
        assertTrue(ignored.limitHit().equals(Optional.of(LimitHit.CPU_TIME)) || ignored.signal().equals(Optional.of(9)), describe(ignored));
        assertEquals("", stdout(ignored), describe(ignored));
    }

    /** Was a finding: a planted jobs directory was trusted; now one not owned by the service is refused. */
    @Test
    void aJobsDirectoryOwnedBySomeoneElseIsNotTrusted() throws Exception {
        Path base = Files.createTempDirectory("nixexec-adversarial-");
        Path planted = base.resolve("jobs");
        try {
            // What an unprivileged local user can do before the service first starts: /var/tmp is world-writable.
            Files.createDirectory(planted);
            Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));
            Files.setAttribute(planted, "unix:uid", 65534);
            NixExecConfig.Executor executor = ConfigOverride.of(NixExecConfig.Executor.class, config.executor(),
                    Map.of("tempDir", Optional.of(planted)));
            NixExecConfig planting = ConfigOverride.of(NixExecConfig.class, config, Map.of("executor", executor));
            Path jobs;
            try {
                jobs = new StatePaths(planting).jobsDir();
            } catch (RuntimeException refused) {
                return; // refusing the planted directory is a safe outcome
            }
            int owner = (Integer) Files.getAttribute(jobs, "unix:uid");
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(jobs);
            int service = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            assertTrue(owner == service && !perms.contains(PosixFilePermission.OTHERS_WRITE)
                    && !perms.contains(PosixFilePermission.GROUP_WRITE),
                    "the service would use " + jobs + " owned by uid " + owner + " with " + PosixFilePermissions.toString(perms));
        } finally {
            ChildStreams.deleteTree(base);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}

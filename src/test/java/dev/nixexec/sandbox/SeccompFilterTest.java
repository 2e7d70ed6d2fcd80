package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Evaluates the program with a classic-BPF interpreter standing in for the kernel's. The real
 * kernel's verdicts are proven by {@code SeccompSandboxTest}.
 */
class SeccompFilterTest {

    private static final int AUDIT_ARCH_I386 = 0x40000003;
    private static final int AUDIT_ARCH_ARM = 0x40000028;
    private static final int ALLOW = SeccompFilter.RET_ALLOW;
    private static final int EPERM = SeccompFilter.RET_ERRNO | SeccompFilter.EPERM;
    private static final int ENOSYS = SeccompFilter.RET_ERRNO | SeccompFilter.ENOSYS;

    /** Runs the program on one struct seccomp_data, the way the kernel's interpreter would. */
    static int evaluate(byte[] program, int arch, int nr, long... args) {
        ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        data.putInt(0, nr).putInt(4, arch).putLong(8, 0x401000L);
        for (int i = 0; i < args.length; i++) {
            data.putLong(16 + 8 * i, args[i]);
        }
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        int count = program.length / 8;
        assertTrue(count > 0 && count <= 4096 && program.length % 8 == 0, "not a sock_filter[]: " + program.length);
        int a = 0;
        for (int pc = 0; pc < count; pc++) {
            int op = code.getShort(pc * 8) & 0xffff;
            int jt = code.get(pc * 8 + 2) & 0xff;
            int jf = code.get(pc * 8 + 3) & 0xff;
            int k = code.getInt(pc * 8 + 4);
            switch (op) {
                case 0x20 -> { // ld w abs
                    assertTrue(k >= 0 && k <= 60 && k % 4 == 0, "load outside seccomp_data at " + pc);
                    a = data.getInt(k);
                }
                case 0x15 -> pc += a == k ? jt : jf; // jeq k
                case 0x35 -> pc += Integer.compareUnsigned(a, k) >= 0 ? jt : jf; // jge k (unsigned)
                case 0x05 -> pc += k; // ja
                case 0x06 -> {
                    return k; // ret k
                }
                default -> throw new AssertionError("unexpected opcode 0x" + Integer.toHexString(op) + " at " + pc);
            }
        }
        throw new AssertionError("the program ran off its end");
    }

    private static int x86(int nr, long... args) {
        return evaluate(SeccompFilter.program(), SeccompFilter.AUDIT_ARCH_X86_64, nr, args);
    }

    private static int arm(int nr, long... args) {
        return evaluate(SeccompFilter.program(), SeccompFilter.AUDIT_ARCH_AARCH64, nr, args);
    }

    @Test
    void everyDeniedCallGetsItsErrnoOnBothArchitectures() {
        for (SeccompFilter.Denied d : SeccompFilter.DENIED) {
            int expected = SeccompFilter.RET_ERRNO | d.errno();
            assertEquals(expected, x86(d.x86_64()), d.name() + " on x86_64");
            assertEquals(expected, arm(d.aarch64()), d.name() + " on aarch64");
        }
        assertEquals(ENOSYS, x86(425));
        assertEquals(EPERM, x86(250, 1, 0));
    }

    @Test
    void ordinaryCallsAreAllowed() {
        // read, write, openat, mmap, clone, execve, futex, ptrace, getrandom on x86_64
        for (int nr : new int[] {0, 1, 257, 9, 56, 59, 202, 101, 318, 435, 0x3fffffff}) {
            assertEquals(ALLOW, x86(nr), "x86_64 " + nr);
        }
        // read, write, openat, mmap, clone, execve, futex, ptrace, getrandom on aarch64
        for (int nr : new int[] {63, 64, 56, 222, 220, 221, 98, 117, 278, 435}) {
            assertEquals(ALLOW, arm(nr), "aarch64 " + nr);
        }
    }

    @Test
    void numbersOfTheOtherArchitectureAreNotConfused() {
        // aarch64's keyctl (219) is restart_syscall on x86_64; it must pass there
        assertEquals(ALLOW, x86(219));
        // x86_64's keyctl (250) is not a denied call on aarch64 (there it is unassigned)
        assertEquals(ALLOW, arm(250));
    }

    @Test
    void foreignAbisGetEnosys() {
        for (int nr : new int[] {0, 1, 20, 288, 250}) {
            assertEquals(ENOSYS, evaluate(SeccompFilter.program(), AUDIT_ARCH_I386, nr), "i386 " + nr);
            assertEquals(ENOSYS, evaluate(SeccompFilter.program(), AUDIT_ARCH_ARM, nr), "arm " + nr);
        }
        // x32 on an x86_64 kernel: the same arch word, the syscall number with bit 30 set
        assertEquals(ENOSYS, x86(0x40000000 | 39)); // x32 getpid
        assertEquals(ENOSYS, x86(0x40000000 | 250)); // x32 keyctl
        assertEquals(ENOSYS, x86(-1));
    }

    @Test
    void onlyTerminalInjectionIoctlsAreRefused() {
        assertEquals(EPERM, x86(16, 0, SeccompFilter.TIOCSTI));
        assertEquals(EPERM, x86(16, 5, SeccompFilter.TIOCLINUX));
        assertEquals(EPERM, arm(29, 0, SeccompFilter.TIOCSTI));
        // the kernel reads the request as an unsigned int: high bits must not smuggle TIOCSTI past the filter
        assertEquals(EPERM, x86(16, 0, 0xdead_0000_0000_0000L | SeccompFilter.TIOCSTI));
        for (long request : new long[] {0x5401 /* TCGETS */, 0x5413 /* TIOCGWINSZ */, 0x541B /* FIONREAD */,
                0x5421 /* FIONBIO */, 0x5411}) {
            assertEquals(ALLOW, x86(16, 1, request), Long.toHexString(request));
            assertEquals(ALLOW, arm(29, 1, request), Long.toHexString(request));
        }
        // TIOCSTI's number in another argument is no reason to refuse
        assertEquals(ALLOW, x86(16, SeccompFilter.TIOCSTI, 0x5401, SeccompFilter.TIOCSTI));
    }

    @Test
    void personalityAllowsOnlyHarmlessValues() {
        for (long persona : new long[] {0, 8, 0x20000, 0xffffffffL}) {
            assertEquals(ALLOW, x86(135, persona), Long.toHexString(persona));
            assertEquals(ALLOW, arm(92, persona), Long.toHexString(persona));
        }
        for (long persona : new long[] {0x0400000 /* READ_IMPLIES_EXEC */, 0x0040000 /* ADDR_NO_RANDOMIZE */,
                0x0200000 /* MMAP_PAGE_ZERO */, 0x0040008}) {
            assertEquals(EPERM, x86(135, persona), Long.toHexString(persona));
            assertEquals(EPERM, arm(92, persona), Long.toHexString(persona));
        }
        // a call after the personality and ioctl tests still sees its own number
        assertEquals(ALLOW, x86(136));
    }

    @Test
    void socketsOnlyOfTheFamiliesJobsUse() {
        int noFamily = SeccompFilter.RET_ERRNO | SeccompFilter.EAFNOSUPPORT;
        int noProtocol = SeccompFilter.RET_ERRNO | SeccompFilter.EPROTONOSUPPORT;
        // socket and socketpair on x86_64 (41, 53) and aarch64 (198, 199)
        for (int[] nrs : new int[][] {{41, 53}, {198, 199}}) {
            boolean onX86 = nrs[0] == 41;
            for (int nr : nrs) {
                java.util.function.LongFunction<Integer> call = family -> onX86 ? x86(nr, family, 1, 0) : arm(nr, family, 1, 0);
                for (long allowed : new long[] {1 /* AF_UNIX */, 2 /* AF_INET */, 10 /* AF_INET6 */}) {
                    assertEquals(ALLOW, call.apply(allowed), nr + " family " + allowed);
                }
                // AF_UNSPEC, AX25, IPX, APPLETALK, KEY, PACKET, CAN, BLUETOOTH, ALG, VSOCK, XDP, MCTP, and a high word
                for (long refused : new long[] {0, 3, 4, 5, 15, 17, 29, 31, 38, 40, 44, 45, 46, 0x1_0000_0028L}) {
                    assertEquals(noFamily, call.apply(refused), nr + " family " + refused);
                }
                // netlink: NETLINK_ROUTE only; the protocol's high word is ignored by the kernel as here
                int route = onX86 ? x86(nr, 16, 3, 0) : arm(nr, 16, 3, 0);
                assertEquals(ALLOW, route, nr + " NETLINK_ROUTE");
                for (long protocol : new long[] {9 /* AUDIT */, 15 /* KOBJECT_UEVENT */, 6 /* XFRM */, 12 /* NETFILTER */,
                        16 /* GENERIC */, 4 /* SOCK_DIAG */}) {
                    assertEquals(noProtocol, onX86 ? x86(nr, 16, 3, protocol) : arm(nr, 16, 3, protocol), nr + " netlink " + protocol);
                }
            }
        }
        // the calls after the socket test still see their own number
        assertEquals(ALLOW, x86(42, 99, 0, 0)); // connect
        assertEquals(EPERM, x86(135, 0x0040000)); // personality ADDR_NO_RANDOMIZE
    }

    @Test
    void theProgramFitsInOneAtomicWriteThroughTheGate() {
        // the gate is a FIFO: only a write of at most PIPE_BUF (4096) bytes arrives whole
        assertTrue(SeccompFilter.program().length <= 4096, SeccompFilter.program().length + " bytes");
    }
}

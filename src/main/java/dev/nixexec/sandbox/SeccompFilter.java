package dev.nixexec.sandbox;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The seccomp program bubblewrap installs ({@code --seccomp FD}) before it runs the code: a classic
 * BPF {@code struct sock_filter[]} that allows by default and refuses the syscall classes an
 * unprivileged user namespace still reaches and a job never needs — kernel keyrings, userfaultfd,
 * io_uring, perf events, bpf, kexec and module loading, terminal injection ioctls, personality
 * flags that weaken ASLR, and sockets of any family but Unix, IPv4, IPv6 and routing netlink
 * (vsock, packet, Bluetooth, AF_ALG, AF_KEY, ... reach host or kernel code a job has no use for).
 * Why each one is in docs/sandbox.md.
 *
 * <p>Calls from any ABI but the host's native x86_64 or aarch64 one (i386 {@code int 0x80}, x32,
 * arm32) get ENOSYS: their syscall numbers differ, so a deny list written for one ABI would not
 * hold for another.
 */
public final class SeccompFilter {

    public static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    public static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
    /** Syscall numbers of the x32 ABI on an x86_64 kernel carry this bit. */
    static final int X32_SYSCALL_BIT = 0x40000000;

    static final int RET_ALLOW = 0x7fff0000;
    static final int RET_ERRNO = 0x00050000;
    static final int EPERM = 1;
    static final int ENOSYS = 38;
    static final int EPROTONOSUPPORT = 93;
    static final int EAFNOSUPPORT = 97;

    static final int TIOCSTI = 0x5412;
    static final int TIOCLINUX = 0x541C;

    /** Offsets in struct seccomp_data; argument words are the low 32 bits (both ABIs are little-endian). */
    private static final int NR = 0;
    private static final int ARCH = 4;

    private static int argLow(int index) {
        return 16 + 8 * index;
    }

    // classic BPF opcodes
    private static final short LD_W_ABS = 0x20;
    private static final short JEQ_K = 0x15;
    private static final short JGE_K = 0x35;
    private static final short RET_K = 0x06;
    private static final short JA = 0x05;

    /** A refused syscall: its name, its number on each ABI, and the errno it gets. */
    public record Denied(String name, int x86_64, int aarch64, int errno) {
    }

    /** Personality values allowed: plain Linux, 32-bit uname, uname26, and the query. */
    static final List<Integer> ALLOWED_PERSONALITIES = List.of(0x0, 0x8, 0x20000, 0x20008, 0xffffffff);

    /**
     * Refused outright. io_uring gets ENOSYS so runtimes (libuv, liburing users) fall back to plain
     * syscalls as they do on kernels without it; the rest get EPERM.
     */
    public static final List<Denied> DENIED = List.of(
            new Denied("add_key", 248, 217, EPERM),
            new Denied("request_key", 249, 218, EPERM),
            new Denied("keyctl", 250, 219, EPERM),
            new Denied("userfaultfd", 323, 282, EPERM),
            new Denied("io_uring_setup", 425, 425, ENOSYS),
            new Denied("io_uring_enter", 426, 426, ENOSYS),
            new Denied("io_uring_register", 427, 427, ENOSYS),
            new Denied("perf_event_open", 298, 241, EPERM),
            new Denied("bpf", 321, 280, EPERM),
            new Denied("kexec_load", 246, 104, EPERM),
            new Denied("kexec_file_load", 320, 294, EPERM),
            new Denied("init_module", 175, 105, EPERM),
            new Denied("finit_module", 313, 273, EPERM),
            new Denied("delete_module", 176, 106, EPERM));

    static final int IOCTL_X86_64 = 16;
    static final int IOCTL_AARCH64 = 29;
    static final int PERSONALITY_X86_64 = 135;
    static final int PERSONALITY_AARCH64 = 92;
    static final int SOCKET_X86_64 = 41;
    static final int SOCKETPAIR_X86_64 = 53;
    static final int SOCKET_AARCH64 = 198;
    static final int SOCKETPAIR_AARCH64 = 199;

    static final int AF_NETLINK = 16;
    static final int NETLINK_ROUTE = 0;
    /** AF_UNIX, AF_INET, AF_INET6: every socket a job's code and runtimes open. */
    static final List<Integer> ALLOWED_FAMILIES = List.of(1, 2, 10);

    private SeccompFilter() {
    }

    /** The program as the kernel reads it: 8 bytes per instruction, little-endian. */
    public static byte[] program() {
        List<long[]> x86 = archBlock(true);
        List<long[]> insns = new ArrayList<>();
        insns.add(stmt(LD_W_ABS, ARCH));
        insns.add(jump(JEQ_K, AUDIT_ARCH_X86_64, 1, 0));
        insns.add(stmt(JA, x86.size()));
        insns.addAll(x86);
        insns.add(jump(JEQ_K, AUDIT_ARCH_AARCH64, 1, 0));
        insns.add(stmt(RET_K, RET_ERRNO | ENOSYS));
        insns.addAll(archBlock(false));

        ByteBuffer out = ByteBuffer.allocate(insns.size() * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long[] i : insns) {
            out.putShort((short) i[0]).put((byte) i[1]).put((byte) i[2]).putInt((int) i[3]);
        }
        return out.array();
    }

    private static List<long[]> archBlock(boolean x86) {
        List<long[]> b = new ArrayList<>();
        b.add(stmt(LD_W_ABS, NR));
        if (x86) {
            b.add(jump(JGE_K, X32_SYSCALL_BIT, 0, 1));
            b.add(stmt(RET_K, RET_ERRNO | ENOSYS));
        }
        for (Denied d : DENIED) {
            b.add(jump(JEQ_K, x86 ? d.x86_64() : d.aarch64(), 0, 1));
            b.add(stmt(RET_K, RET_ERRNO | d.errno()));
        }
        // ioctl: refuse pushing input into a terminal (TIOCSTI) and the console's TIOCLINUX. The
        // kernel takes the request as an unsigned int, so the low word is the whole request.
        List<Integer> badIoctls = List.of(TIOCSTI, TIOCLINUX);
        b.add(jump(JEQ_K, x86 ? IOCTL_X86_64 : IOCTL_AARCH64, 0, badIoctls.size() + 3));
        b.add(stmt(LD_W_ABS, argLow(1)));
        for (int i = 0; i < badIoctls.size(); i++) {
            b.add(jump(JEQ_K, badIoctls.get(i), badIoctls.size() - i, 0));
        }
        b.add(stmt(RET_K, RET_ALLOW));
        b.add(stmt(RET_K, RET_ERRNO | EPERM));
        sockets(b, x86);
        // personality: only the values ordinary programs set (no READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ...);
        // the accumulator still holds the syscall number when the ioctl test did not match.
        int allowed = ALLOWED_PERSONALITIES.size();
        b.add(jump(JEQ_K, x86 ? PERSONALITY_X86_64 : PERSONALITY_AARCH64, 0, allowed + 2));
        b.add(stmt(LD_W_ABS, argLow(0)));
        for (int i = 0; i < allowed; i++) {
            b.add(jump(JEQ_K, ALLOWED_PERSONALITIES.get(i), allowed - i, 0));
        }
        b.add(stmt(RET_K, RET_ERRNO | EPERM));
        b.add(stmt(RET_K, RET_ALLOW));
        return b;
    }

    /**
     * socket and socketpair: the allowed families, and netlink only for NETLINK_ROUTE, which glibc's
     * getaddrinfo (AI_ADDRCONFIG), if_nameindex and getifaddrs (Node's os.networkInterfaces) read
     * the addresses through; in the run's own network namespace it shows only the run's interfaces.
     * Other families get EAFNOSUPPORT, as on a kernel built without them; other netlink protocols
     * (audit, uevents, xfrm, netfilter, generic) EPROTONOSUPPORT. The kernel takes both arguments
     * as int, so the low words are the whole values. Entered with the syscall number loaded, and
     * leaves it loaded when the call is neither.
     */
    private static void sockets(List<long[]> b, boolean x86) {
        int families = ALLOWED_FAMILIES.size();
        b.add(jump(JEQ_K, x86 ? SOCKET_X86_64 : SOCKET_AARCH64, 1, 0));
        b.add(jump(JEQ_K, x86 ? SOCKETPAIR_X86_64 : SOCKETPAIR_AARCH64, 0, families + 7));
        b.add(stmt(LD_W_ABS, argLow(0)));
        for (int i = 0; i < families; i++) {
            b.add(jump(JEQ_K, ALLOWED_FAMILIES.get(i), families + 4 - i, 0));
        }
        b.add(jump(JEQ_K, AF_NETLINK, 1, 0));
        b.add(stmt(RET_K, RET_ERRNO | EAFNOSUPPORT));
        b.add(stmt(LD_W_ABS, argLow(2)));
        b.add(jump(JEQ_K, NETLINK_ROUTE, 1, 0));
        b.add(stmt(RET_K, RET_ERRNO | EPROTONOSUPPORT));
        b.add(stmt(RET_K, RET_ALLOW));
    }

    private static long[] stmt(short code, int k) {
        return new long[] {code, 0, 0, k & 0xffffffffL};
    }

    private static long[] jump(short code, int k, int jt, int jf) {
        return new long[] {code, jt, jf, k & 0xffffffffL};
    }
}

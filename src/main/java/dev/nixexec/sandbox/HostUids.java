package dev.nixexec.sandbox;

import dev.nixexec.config.NixExecConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.BitSet;
import java.util.OptionalInt;

/**
 * When the service runs as root, each concurrent run gets its own unprivileged host uid from a
 * range: RLIMIT_NPROC counts processes per uid across the host, so a shared uid would let one run's
 * processes count against another's.
 */
@ApplicationScoped
public class HostUids {

    private static final int RANGE = 4096;

    private final int base;
    private final boolean root;
    private final BitSet inUse = new BitSet(RANGE);

    public HostUids(NixExecConfig config) {
        this.base = config.sandbox().hostUidBase();
        this.root = "root".equals(System.getProperty("user.name"));
    }

    /** True when runs switch uid (the service is root); otherwise they run as the service user. */
    public boolean switching() {
        return root;
    }

    public synchronized OptionalInt acquire() {
        if (!root) {
            return OptionalInt.empty();
        }
        int free = inUse.nextClearBit(0);
        if (free >= RANGE) {
            throw new IllegalStateException("more than " + RANGE + " concurrent sandboxes");
        }
        inUse.set(free);
        return OptionalInt.of(base + free);
    }

    public synchronized void release(OptionalInt uid) {
        uid.ifPresent(u -> inUse.clear(u - base));
    }
}

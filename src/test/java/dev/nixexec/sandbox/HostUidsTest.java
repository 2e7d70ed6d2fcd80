package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A per-run uid is taken again without searching the host's processes only when its last run is
 * known to have left none (its cgroup was removed); otherwise whatever still runs under it dies
 * before the next run gets it.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class HostUidsTest {

    @Inject
    NixExecConfig config;

    /** Of their own, far above the uids the service's runs take meanwhile, so no run of it takes one back first. */
    HostUids uids;

    @BeforeEach
    void ownUids() {
        uids = ownRange();
        assumeTrue(uids.switching(), "per-run uids need a root service");
    }

    private HostUids ownRange() {
        NixExecConfig.Sandbox sandbox = ConfigOverride.of(NixExecConfig.Sandbox.class, config.sandbox(),
                Map.of("hostUidBase", config.sandbox().hostUidBase() + 3000));
        return new HostUids(ConfigOverride.of(NixExecConfig.class, config, Map.of("sandbox", sandbox)));
    }

    /** Tests start several services in one JVM, one after another: a stopped one holds no uid, kept or not. */
    @Test
    void aStoppedServiceHoldsNoUid() {
        int uid = uids.acquire().orElseThrow();
        uids.release(OptionalInt.of(uid), true);
        uids.close();
        HostUids next = ownRange();
        OptionalInt taken = next.acquire();
        next.close();
        assertEquals(OptionalInt.of(uid), taken);
    }

    @Test
    void aUidGivenBackWithAProcessLeftHasItKilledBeforeItIsTakenAgain() throws Exception {
        int uid = uids.acquire().orElseThrow();
        Process left = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--",
                "sleep", "600").start();
        try {
            uids.release(OptionalInt.of(uid), false);
            OptionalInt next = uids.acquire();
            uids.release(next, false);
            assertEquals(OptionalInt.of(uid), next, "the uid given back was not the next one taken");
            assertTrue(left.waitFor(10, TimeUnit.SECONDS), "the process left under the uid still runs");
        } finally {
            left.destroyForcibly();
        }
    }

    @Test
    void aUidWhoseRunLeftNoProcessStaysLockedUntilItsNextRun() throws Exception {
        int uid = uids.acquire().orElseThrow();
        uids.release(OptionalInt.of(uid), true);
        // another service cannot take it meanwhile, and so cannot leave processes under it unseen
        // a POSIX record lock, as another service's FileChannel takes it (flock(1) takes another kind)
        Process other = new ProcessBuilder("python3", "-c",
                "import fcntl, sys; fcntl.lockf(open(sys.argv[1], 'a'), fcntl.LOCK_EX | fcntl.LOCK_NB)",
                StatePaths.privateRunDir().resolve("uids").resolve(Integer.toString(uid)).toString()).start();
        assertTrue(other.waitFor(10, TimeUnit.SECONDS));
        assertEquals(1, other.exitValue(), "another service could lock the uid while it waited");
        OptionalInt next = uids.acquire();
        // unlocked again, so that another instance of the test (or the other test) may take it
        uids.release(next, false);
        assertEquals(OptionalInt.of(uid), next, "the kept uid was not the next one taken");
        assertFalse(other.isAlive());
    }
}

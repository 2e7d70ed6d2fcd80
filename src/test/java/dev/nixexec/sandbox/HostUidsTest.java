package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
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
    HostUids uids;

    @BeforeEach
    void needsRoot() {
        assumeTrue(uids.switching(), "per-run uids need a root service");
    }

    @Test
    void aUidGivenBackWithAProcessLeftHasItKilledBeforeItIsTakenAgain() throws Exception {
        int uid = uids.acquire().orElseThrow();
        Process left = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--",
                "sleep", "600").start();
        try {
            uids.release(OptionalInt.of(uid), false);
            List<Integer> taken = new ArrayList<>();
            // other runs of this service may hold or take uids meanwhile: take until this one comes back
            for (int i = 0; i < 64 && !taken.contains(uid); i++) {
                taken.add(uids.acquire().orElseThrow());
            }
            taken.forEach(u -> uids.release(OptionalInt.of(u), false));
            assertTrue(taken.contains(uid), "the uid given back was not handed out again");
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
        uids.release(next, true);
        assertEquals(OptionalInt.of(uid), next, "the kept uid was not the next one taken");
        assertFalse(other.isAlive());
    }
}

package dev.nixexec.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.testing.ConfigOverride;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TenantCacheTest {

    private static final LiveKey KEY = new LiveKey(new Caller(UUID.randomUUID(), UUID.randomUUID(), Role.MEMBER), null);

    @Test
    void keepsWhatItReadsOnlyWhileItHearsChanges() {
        TenantCache cache = cache(Duration.ofSeconds(10));
        AtomicInteger reads = new AtomicInteger();
        cache.key("k", () -> count(reads));
        cache.key("k", () -> count(reads));
        assertEquals(2, reads.get(), "not hearing: every lookup reads");
        cache.hearing(true);
        assertEquals(Optional.empty(), cache.kept("k"));
        cache.key("k", () -> count(reads));
        cache.key("k", () -> count(reads));
        assertEquals(3, reads.get(), "hearing: the second lookup is kept");
        assertEquals(Optional.of(KEY), cache.kept("k"), "and can be asked without a read");
        cache.changed();
        assertEquals(Optional.empty(), cache.kept("k"));
        cache.key("k", () -> count(reads));
        assertEquals(4, reads.get(), "a change drops what was kept");
        cache.hearing(false);
        cache.key("k", () -> count(reads));
        assertEquals(5, reads.get(), "a lost connection drops what was kept");
    }

    @Test
    void aReadThatAChangeOvertookIsNotKept() {
        TenantCache cache = cache(Duration.ofSeconds(10));
        cache.hearing(true);
        AtomicInteger reads = new AtomicInteger();
        cache.key("k", () -> {
            cache.changed(); // the revoke's notification arrives while the read is on its way
            return count(reads);
        });
        cache.key("k", () -> count(reads));
        assertEquals(2, reads.get());
    }

    @Test
    void unknownKeysAreNeverKeptAndEntriesLapse() throws InterruptedException {
        TenantCache cache = cache(Duration.ofMillis(50));
        cache.hearing(true);
        AtomicInteger reads = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            cache.key("unknown", () -> {
                reads.incrementAndGet();
                return Optional.empty();
            });
        }
        assertEquals(2, reads.get());
        cache.key("k", () -> count(reads));
        Thread.sleep(80);
        cache.key("k", () -> count(reads));
        assertEquals(4, reads.get());
    }

    private static Optional<LiveKey> count(AtomicInteger reads) {
        reads.incrementAndGet();
        return Optional.of(KEY);
    }

    private static TenantCache cache(Duration ttl) {
        NixExecConfig.Auth auth = ConfigOverride.of(NixExecConfig.Auth.class, null, Map.of("cacheTtl", ttl));
        return new TenantCache(ConfigOverride.of(NixExecConfig.class, null, Map.of("auth", auth)));
    }
}

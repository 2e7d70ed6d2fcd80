package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.tenant.TenantPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata NUL rule (PostgreSQL jsonb holds no U+0000), anywhere in the tree; a tenant's caps on limits. */
class SubmissionCheckTest {

    /** The tenant half of the checks needs none of the service's parts. */
    private static final SubmissionCheck CHECK = new SubmissionCheck(null, null, null, null);

    private static Submission asking(RequestedLimits limits) {
        return Submission.of(ExecutionRequest.of("bash", "true").withLimits(limits));
    }

    @Test
    void limitsOverTheTenantsCapsAreRefusedTogether() {
        TenantPolicy caps = new TenantPolicy(null, null, null, null, null, 1000L, null, null, null, 64L << 20, 32, 5L);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> CHECK.check(
                asking(new RequestedLimits((64L << 20) + 1, 33, 6L, 1001L)), caps));
        assertEquals(List.of("limits.memory", "limits.pids", "limits.cpu_seconds", "limits.output_bytes"),
                e.errors().stream().map(FieldError::field).toList());
        assertTrue(e.errors().get(0).message().contains("67108864 bytes (64MiB) for this tenant"), e.getMessage());
        CHECK.check(asking(new RequestedLimits(64L << 20, 32, 5L, 1000L)), caps);
        CHECK.check(asking(RequestedLimits.NONE), caps);
        CHECK.check(asking(new RequestedLimits(1L << 40, 100_000, 100_000L, 1L << 40)), TenantPolicy.defaults());
    }

    @Test
    void aNulAnywhereInKeysOrStringsIsFound() {
        assertTrue(SubmissionCheck.holdsNul(Map.of("a\0b", 1)));
        assertTrue(SubmissionCheck.holdsNul(Map.of("a", "x\0")));
        assertTrue(SubmissionCheck.holdsNul(Map.of("a", List.of(1, Map.of("deep", List.of("\0"))))));
    }

    @Test
    void otherValuesPass() {
        Map<String, Object> withNull = new HashMap<>();
        withNull.put("nothing", null);
        assertFalse(SubmissionCheck.holdsNul(Map.of()));
        assertFalse(SubmissionCheck.holdsNul(withNull));
        assertFalse(SubmissionCheck.holdsNul(Map.of("a", List.of(1, true, 2.5, "\u200f\uD83D\uDE00 \\0"))));
    }
}

package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata NUL rule (PostgreSQL jsonb holds no U+0000), anywhere in the tree. */
class SubmissionCheckTest {

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

package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The list cursor: what the service gives out it takes back; anything else is a 400 on {@code cursor}. */
class JobCursorTest {

    private static final UUID ID = UUID.fromString("0f8e2a7c-3b1d-4c5e-9a6b-7d8e9f0a1b2c");

    @Test
    void aCursorComesBackAsItWasGivenOut() {
        JobCursor cursor = new JobCursor(OffsetDateTime.parse("2026-12-01T17:06:02.123456Z"), ID);
        String text = cursor.encode();
        assertFalse(text.contains("=") || text.contains("+") || text.contains("/"), "URL-safe, unpadded: " + text);
        assertEquals(cursor, JobCursor.decode(text));
    }

    @Test
    void theFormIsTheOneEarlierVersionsGaveOut() {
        // clients may hold cursors across an upgrade: creation time, a bar, the id
        String earlier = Base64.getUrlEncoder().withoutPadding()
                .encodeToString(("2026-12-01T17:06:02.123456Z|" + ID).getBytes(StandardCharsets.UTF_8));
        JobCursor cursor = JobCursor.decode(earlier);
        assertEquals(OffsetDateTime.parse("2026-12-01T17:06:02.123456Z"), cursor.createdAt());
        assertEquals(ID, cursor.id());
        assertEquals(earlier, cursor.encode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not base64!", "bm8gYmFy", "MjAyNi0xMi0wMVQxNzowNjowMlp8bm90LWEtdXVpZA",
            "eHx5fHo", "%%%"})
    void anythingElseIsRefusedOnTheCursorField(String text) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> JobCursor.decode(text));
        assertEquals(List.of(new FieldError("cursor", "not a cursor this service gave out")), e.errors());
        assertFalse(e.tooLarge());
    }
}

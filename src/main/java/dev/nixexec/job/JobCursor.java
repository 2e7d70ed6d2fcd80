package dev.nixexec.job;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Where a page of a list ended: its last job's creation time and id (the list's order), given
 * out as opaque URL-safe text and taken back only in that form.
 */
public record JobCursor(OffsetDateTime createdAt, UUID id) {

    /** The cursor after this job. */
    static JobCursor after(Job last) {
        return new JobCursor(last.createdAt(), last.id());
    }

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((createdAt + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /** A cursor this service gave out; anything else is the caller's mistake (400, field {@code cursor}). */
    public static JobCursor decode(String text) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8).split("\\|", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("no separator");
            }
            return new JobCursor(OffsetDateTime.parse(parts[0]), UUID.fromString(parts[1]));
        } catch (RuntimeException e) {
            throw new InvalidRequestException(List.of(new FieldError("cursor", "not a cursor this service gave out")), false);
        }
    }
}

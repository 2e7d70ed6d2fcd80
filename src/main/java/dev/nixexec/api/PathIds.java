package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import java.util.UUID;

/** An id in a request's path: a UUID, and anything else is as unknown as an id no row has (404). */
final class PathIds {

    private PathIds() {
    }

    static UUID uuidOr404(String id, String notFound) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, notFound);
        }
    }
}

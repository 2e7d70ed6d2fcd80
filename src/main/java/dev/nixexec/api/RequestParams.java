package dev.nixexec.api;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import java.time.Duration;
import java.util.List;

/** What every resource checks alike: a JSON body is present, and the {@code ?wait} long-poll parameter. */
final class RequestParams {

    private RequestParams() {
    }

    static <T> T requireBody(T body) {
        if (body == null) {
            throw new InvalidRequestException(List.of(new FieldError("body", "a JSON object is required")), false);
        }
        return body;
    }

    /** {@code ?wait}: absent or blank is no wait. */
    static Duration waitParam(String wait) {
        return wait == null || wait.isBlank() ? Duration.ZERO : SubmitBody.duration("wait", wait);
    }
}

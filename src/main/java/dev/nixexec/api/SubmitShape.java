package dev.nixexec.api;

import dev.nixexec.refusal.FieldError;
import jakarta.enterprise.context.RequestScoped;
import java.util.List;

/**
 * The shape problems of this request's job submission ({@link BodyText}), which the body was read
 * without: {@code POST /v1/jobs} refuses them together with what intake finds in the rest.
 */
@RequestScoped
public class SubmitShape {

    private List<FieldError> problems = List.of();

    void found(List<FieldError> found) {
        problems = List.copyOf(found);
    }

    List<FieldError> problems() {
        return problems;
    }
}

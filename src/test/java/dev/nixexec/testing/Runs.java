package dev.nixexec.testing;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionEvent;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.sandbox.LimitHit;
import io.smallrye.mutiny.Multi;
import java.time.Duration;
import java.util.List;

/** Small conveniences for tests that run code through the real engine. */
public final class Runs {

    private Runs() {
    }

    public static ExecutionResult run(ExecutionEngine engine, String language, String code) {
        return run(engine, ExecutionRequest.of(language, code));
    }

    /** Runs to the end and returns the result (output also arrives in the result's captures). */
    public static ExecutionResult run(ExecutionEngine engine, ExecutionRequest request) {
        return execute(engine, request).filter(e -> e instanceof ExecutionEvent.Finished)
                .map(e -> ((ExecutionEvent.Finished) e).result()).toUni().await().indefinitely();
    }

    /**
     * Validates at once (throwing {@link dev.nixexec.refusal.InvalidRequestException}), then
     * returns a stream that runs the request when subscribed, with nothing asked before it builds or runs.
     */
    public static Multi<ExecutionEvent> execute(ExecutionEngine engine, ExecutionRequest request) {
        return engine.execute(engine.validate(request), () -> true, environment -> true);
    }

    public static String stdout(ExecutionResult result) {
        return result.stdout().text();
    }

    public static String stderr(ExecutionResult result) {
        return result.stderr().text();
    }

    /** All events of one execution, in order. */
    public static List<ExecutionEvent> events(ExecutionEngine engine, ExecutionRequest request) {
        return execute(engine, request).collect().asList().await().atMost(Duration.ofMinutes(5));
    }

    public static String describe(ExecutionResult result) {
        return result.status() + " exit=" + result.exitCode().orElse(null) + " limit=" + result.limitHit().map(LimitHit::id).orElse(null)
                + " error=" + result.error().orElse(null) + "\nstdout: " + result.stdout().text() + "\nstderr: "
                + result.stderr().text();
    }
}

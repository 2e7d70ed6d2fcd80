package dev.nixexec.execution;

import dev.nixexec.sandbox.StreamName;

/** What one execution reports, in order: phases, output chunks, and finally one {@link Finished}. */
public sealed interface ExecutionEvent {

    /** {@code building} while the environment is being had, {@code running} once the code starts. */
    record Phase(String status) implements ExecutionEvent {
    }

    /** The environment is there (built or cached); the code starts next. */
    record EnvironmentReady(ExecutionResult.EnvironmentInfo environment) implements ExecutionEvent {
    }

    record Output(StreamName stream, byte[] data) implements ExecutionEvent {
    }

    record Finished(ExecutionResult result) implements ExecutionEvent {
    }
}

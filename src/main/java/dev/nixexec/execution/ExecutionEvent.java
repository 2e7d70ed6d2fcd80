package dev.nixexec.execution;

import dev.nixexec.sandbox.StreamName;

/** What one execution reports, in order: output chunks, and finally one {@link Finished}. */
public sealed interface ExecutionEvent {

    record Output(StreamName stream, byte[] data) implements ExecutionEvent {
    }

    record Finished(ExecutionResult result) implements ExecutionEvent {
    }
}

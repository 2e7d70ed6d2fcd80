package dev.nixexec.sandbox;

/** What a running sandbox reports: output as it appears, then exactly one {@link Exited}. */
public sealed interface SandboxEvent {

    record Started(long pid) implements SandboxEvent {
    }

    record Output(StreamName stream, byte[] data) implements SandboxEvent {
    }

    record Exited(SandboxResult result) implements SandboxEvent {
    }
}

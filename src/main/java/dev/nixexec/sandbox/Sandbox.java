package dev.nixexec.sandbox;

import io.smallrye.mutiny.Multi;

/** Runs code in isolation. The stream starts the run on subscription and ends with {@link SandboxEvent.Exited}. */
public interface Sandbox {

    Multi<SandboxEvent> run(SandboxSpec spec);

    /** Empty when the backend can run here; otherwise why not, in one line. */
    java.util.Optional<String> unavailableReason();
}

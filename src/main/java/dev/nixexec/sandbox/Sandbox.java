package dev.nixexec.sandbox;

import io.smallrye.mutiny.Multi;

/** Runs code in isolation. The stream starts the run on subscription and ends with {@link SandboxEvent.Exited}. */
public interface Sandbox {

    /** Asks {@code gate} before any user code starts; when it says no, the stream fails with {@link RunCalledOff}. */
    Multi<SandboxEvent> run(SandboxSpec spec, RunGate gate);

    /** Empty when the backend can run here; otherwise why not, in one line. */
    java.util.Optional<String> unavailableReason();

    /** Empty when runs with network can start here; otherwise why not, in one line (runs without still can). */
    default java.util.Optional<String> networkUnavailableReason() {
        return java.util.Optional.empty();
    }
}

package dev.nixexec.session;

import dev.nixexec.sandbox.SandboxSpec;
import java.util.UUID;

/** A session opened for one interactive shell; closing it stores its persistent paths back. */
public interface SessionShell extends AutoCloseable {

    UUID sessionId();

    UUID tenantId();

    /** The shell's sandbox: the session's environment, env, network, writable paths and limits. */
    SandboxSpec sandbox();

    /** Stores the session's paths back and records its last use; called once, when the shell ended. */
    @Override
    void close();
}

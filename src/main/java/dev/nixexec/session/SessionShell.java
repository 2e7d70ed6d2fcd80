package dev.nixexec.session;

import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.tenant.TenantPolicy;
import java.util.Optional;
import java.util.UUID;

/** A session opened for one interactive shell; closing it stores its persistent paths back. */
public interface SessionShell extends AutoCloseable {

    UUID sessionId();

    UUID tenantId();

    /** The shell's sandbox: the session's environment, env, network, writable paths and limits. */
    SandboxSpec sandbox();

    /**
     * What of this shell the tenant's policy does not allow (any more): its network, bash, one of
     * its packages, or a limit above a cap the policy has now; empty while the policy allows it all.
     */
    Optional<String> disallowedBy(TenantPolicy policy);

    /** Stores the session's paths back and records its last use; called once, when the shell ended. */
    @Override
    void close();
}

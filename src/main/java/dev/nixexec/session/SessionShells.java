package dev.nixexec.session;

import dev.nixexec.tenant.Caller;
import java.util.Optional;

/**
 * Where the attach endpoint ({@code GET /v1/sessions/{id}/attach}) gets a session's sandbox to open
 * an interactive shell in; the session side implements it.
 */
public interface SessionShells {

    /**
     * The caller's session by id or name, ready for a shell: its persistent paths materialised on this
     * node and the sandbox that mounts them. Empty when the caller's tenant has no such session (the
     * endpoint answers 404, as for another tenant's); throws {@link dev.nixexec.refusal.InvalidRequestException}
     * when the session exists but cannot take a shell (not ready, destroyed), and a
     * {@link dev.nixexec.refusal.Refusal} when the tenant's policy no longer allows it (403) or
     * this node cannot run it. The shell is built from the tenant's policy of now, as an exec is.
     */
    Optional<SessionShell> open(Caller caller, String idOrName);

    /** Whether a shell may stay open in this session: false once it is destroyed (by a caller or by expiry), on any node. */
    boolean live(java.util.UUID sessionId);
}

package dev.nixexec.attach;

import dev.nixexec.sandbox.ShellEnd;
import io.quarkus.websockets.next.CloseReason;

/** The close code and reason that say why a shell ended (docs/api.md, "Attaching a shell"). */
final class ShellClose {

    static final int IDLE = 4001;
    static final int TIME_LIMIT = 4002;
    static final int LIMIT = 4003;
    static final int SESSION_DESTROYED = 4004;
    /** The key that attached was revoked or expired. */
    static final int KEY_ENDED = 4005;
    /** The tenant's policy changed and no longer allows the shell as it runs. */
    static final int POLICY_CHANGED = 4006;

    private ShellClose() {
    }

    static CloseReason of(ShellEnd.Cause cause) {
        return switch (cause) {
            case ShellEnd.Exited exited -> new CloseReason(1000, "exit " + exited.exitCode());
            case ShellEnd.IdleTimeout idle -> new CloseReason(IDLE, "idle: no byte either way for " + idle.after().toSeconds() + "s");
            case ShellEnd.TimeLimit limit -> new CloseReason(TIME_LIMIT, "time limit: " + limit.limit().toSeconds() + "s");
            case ShellEnd.LimitHit hit -> new CloseReason(LIMIT, "limit: " + hit.limit());
            case ShellEnd.Ended ended -> new CloseReason(1000, truncate(ended.reason()));
        };
    }

    /** A close reason is at most 123 bytes. */
    static String truncate(String reason) {
        return reason.length() <= 120 ? reason : reason.substring(0, 117) + "...";
    }
}

package dev.nixexec.sandbox;

import java.time.Duration;

/** How an interactive shell ended, and what passed through its terminal: bytes typed in, bytes shown. */
public record ShellEnd(Cause cause, long bytesIn, long bytesOut, Duration duration) {

    /** Why the shell and its whole sandbox are gone. */
    public sealed interface Cause {
    }

    /** The shell exited (its exit code as bubblewrap reports it: 128 + the signal for a killed shell). */
    public record Exited(int exitCode) implements Cause {
    }

    /** No byte went either way for this long. */
    public record IdleTimeout(Duration after) implements Cause {
    }

    /** The shell's wall-clock limit. */
    public record TimeLimit(Duration limit) implements Cause {
    }

    /** A limit the kernel enforced on the sandbox: {@code memory} or {@code processes}. */
    public record LimitHit(String limit) implements Cause {
    }

    /** The service ended it: the client went away, the session was destroyed, the service stops. */
    public record Ended(String reason) implements Cause {
    }
}

package dev.nixexec.session;

import dev.nixexec.execution.RequestedLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A command to run in a session: {@code command} (an argv, run from the environment's PATH with
 * no shell) or {@code language} and {@code code}, with stdin, env (over the session's), timeout
 * and the run's limits, as a job's.
 */
public record SessionExec(List<String> command, String language, String code, String stdin,
        Map<String, String> env, Optional<Duration> timeout, RequestedLimits limits) {

    public SessionExec {
        env = env == null ? Map.of() : env;
        timeout = timeout == null ? Optional.empty() : timeout;
        limits = limits == null ? RequestedLimits.NONE : limits;
    }

    /** A command under the service's default limits. */
    public SessionExec(List<String> command, String language, String code, String stdin, Map<String, String> env,
            Optional<Duration> timeout) {
        this(command, language, code, stdin, env, timeout, RequestedLimits.NONE);
    }
}

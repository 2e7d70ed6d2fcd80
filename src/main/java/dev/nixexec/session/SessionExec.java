package dev.nixexec.session;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A command to run in a session: {@code command} (an argv, run from the environment's PATH with
 * no shell) or {@code language} and {@code code}, with stdin, env (over the session's) and timeout.
 */
public record SessionExec(List<String> command, String language, String code, String stdin,
        Map<String, String> env, Optional<Duration> timeout) {

    public SessionExec {
        env = env == null ? Map.of() : env;
        timeout = timeout == null ? Optional.empty() : timeout;
    }
}

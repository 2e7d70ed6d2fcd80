package dev.nixexec.session;

import dev.nixexec.profile.SpecBody;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a caller asks for to create a session: at most one of {@code packages}, {@code profile} or
 * {@code spec} (none: bash and the everyday tools), {@code network} ({@code "off"}/{@code "full"}, over the
 * profile's or spec's), env (over the profile's or spec's), and its name, agent, description and
 * idle time; in local mode, a host directory to mount at {@code /workspace}.
 */
public record SessionRequest(List<String> packages, String profile, SpecBody spec, String network,
        Map<String, String> env, String name, String agent, String description, Optional<Duration> idleTtl,
        String hostWorkspace) {

    public SessionRequest {
        env = env == null ? Map.of() : env;
        idleTtl = idleTtl == null ? Optional.empty() : idleTtl;
    }
}

package dev.nixexec.profile;

import java.time.Duration;
import java.util.Optional;

/**
 * What a profile bounds beyond its spec: {@code timeout} is the default and the longest run of a
 * job that names the profile (still within the service's and the tenant's own caps).
 */
public record ProfileLimits(Optional<Duration> timeout) {

    public static final ProfileLimits NONE = new ProfileLimits(Optional.empty());

    public ProfileLimits {
        timeout = timeout == null ? Optional.empty() : timeout;
    }
}

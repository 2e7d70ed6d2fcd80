package dev.nixexec.profile;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.JobService;
import dev.nixexec.job.Submission;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A job that names a profile ({@code profile} in {@code POST /v1/jobs}, MCP {@code run_code} and
 * {@code submit_job}): the submission the adapters hand to {@link JobService}, made from the
 * profile and the job's own fields, so jobs never learn what a profile is. The job runs in its
 * language's environment plus the profile's packages (the job's own {@code packages} add to them);
 * the profile's env, then the job's (the job's value wins); the profile's network unless the job
 * turns it off (a job cannot turn on what its profile keeps off); the profile's timeout unless the
 * job asks for less. Writable paths are a session's matter: a job's /workspace and /tmp are
 * writable as always.
 */
@ApplicationScoped
public class ProfileSubmissions {

    private final Profiles profiles;
    private final Tenants tenants;

    public ProfileSubmissions(Profiles profiles, Tenants tenants) {
        this.profiles = profiles;
        this.tenants = tenants;
    }

    /**
     * The submission {@code s} under profile {@code name}; {@code network} is the job's own word on
     * network, if it gave one. Refused (nothing stored) for an unknown profile, a network the
     * profile or the tenant's policy does not allow, or a timeout beyond the profile's.
     */
    public Submission apply(Caller caller, String name, Submission s, Optional<Boolean> network) {
        Profile profile = profiles.find(caller.tenantId(), name).orElseThrow(() ->
                new InvalidRequestException(List.of(new FieldError("profile", "unknown profile '"
                        // a name outside the grammar is not echoed back whole
                        + (Profiles.NAME.matcher(name).matches() ? name : name.substring(0, Math.min(name.length(), 63))
                                .replaceAll("[^a-z0-9_-]", "?"))
                        + "'; this tenant's profiles: " + profiles.list(caller.tenantId()).stream().map(Profile::name)
                        .collect(Collectors.joining(", ")))), false));
        Spec spec = profile.spec();
        List<FieldError> errors = new ArrayList<>();
        if (network.orElse(false) && !spec.network()) {
            errors.add(new FieldError("network", "profile '" + name + "' keeps the network off; a job may turn its "
                    + "profile's network off, not on"));
        }
        boolean full = network.orElse(spec.network());
        if (full && !tenants.policy(caller.tenantId()).networkAllowed()) {
            errors.add(new FieldError("profile", "profile '" + name + "' has network \"full\", which needs a tenant "
                    + "policy that allows it (policy.network: true); this tenant's does not. "
                    + "Pass network \"off\" to run without it"));
        }
        ExecutionRequest run = s.run();
        Optional<Duration> timeout = run.timeout().or(() -> profile.limits().timeout());
        Optional<Duration> cap = profile.limits().timeout();
        if (cap.isPresent() && timeout.isPresent() && timeout.get().compareTo(cap.get()) > 0) {
            errors.add(new FieldError("timeout", "profile '" + name + "' allows at most " + cap.get().toSeconds() + "s"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        LinkedHashSet<String> packages = new LinkedHashSet<>(spec.packages());
        packages.addAll(run.packages());
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        env.putAll(run.env());
        ExecutionRequest profiled = run.withPackages(packages.toArray(String[]::new)).withEnv(env).withNetwork(full);
        return s.withRun(timeout.map(profiled::withTimeout).orElse(profiled));
    }
}

package dev.nixexec.profile;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The profiles a tenant can name: nixo's built-ins ({@link BuiltInProfiles}), then the tenant's own
 * ({@link ProfileRepository}), which its admins (or an operator) define, replace and delete within
 * the tenant's policy. A built-in's name is never a tenant's.
 */
@ApplicationScoped
public class Profiles {

    /** Like a built-in's: lower case, digits, '-' and '_', starting with a letter or digit. */
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
    static final int MAX_DESCRIPTION = 500;

    private final ProfileRepository repository;
    private final SpecCheck specs;
    private final Tenants tenants;
    private final NixExecConfig config;

    public Profiles(ProfileRepository repository, SpecCheck specs, Tenants tenants, NixExecConfig config) {
        this.repository = repository;
        this.specs = specs;
        this.tenants = tenants;
        this.config = config;
    }

    /** A defined or replaced profile, and whether it is new. */
    public record Saved(Profile profile, boolean created) {
    }

    /** Built-ins first, then the tenant's own by name. */
    public List<Profile> list(UUID tenantId) {
        return Stream.concat(BuiltInProfiles.ALL.stream(), repository.list(tenantId).stream()).toList();
    }

    public Optional<Profile> find(UUID tenantId, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        Optional<Profile> builtIn = builtIn(name);
        return builtIn.isPresent() ? builtIn : repository.find(tenantId, name);
    }

    /**
     * Defines or replaces the tenant's profile {@code name}: refused (every problem at once) when the
     * name, description, spec or limits are not acceptable or the tenant's policy does not allow them.
     */
    public Saved put(Caller caller, UUID tenantId, String name, String description, SpecBody spec,
            ProfileLimits limits) {
        mayChange(caller, name);
        List<FieldError> errors = new ArrayList<>();
        if (description != null && description.length() > MAX_DESCRIPTION) {
            errors.add(new FieldError("description", "at most " + MAX_DESCRIPTION + " characters"));
        } else if (description != null && description.indexOf('\0') >= 0) {
            errors.add(new FieldError("description", "contains a NUL character (U+0000)"));
        }
        TenantPolicy policy = tenants.policy(tenantId);
        Optional<Spec> read = spec.read("", errors);
        read.ifPresent(s -> errors.addAll(specs.problems("", s, policy)));
        limits.timeout().ifPresent(timeout -> timeoutProblem(timeout, policy)
                .ifPresent(problem -> errors.add(new FieldError("limits.timeout", problem))));
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        Profile profile = new Profile(name, description, read.orElseThrow(), limits, false);
        boolean created = QuarkusTransaction.requiringNew().call(() -> repository.put(tenantId, profile, caller.keyId()));
        return new Saved(profile, created);
    }

    /** Deletes the tenant's profile {@code name}; a built-in is not the tenant's to delete. */
    public void delete(Caller caller, UUID tenantId, String name) {
        mayChange(caller, name);
        if (!QuarkusTransaction.requiringNew().call(() -> repository.delete(tenantId, name, caller.keyId()))) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no profile " + name);
        }
    }

    private void mayChange(Caller caller, String name) {
        if (!caller.role().administers()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id()
                    + " key cannot change profiles; an admin of the tenant (or an operator) can");
        }
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidRequestException(List.of(new FieldError("name", "a profile name is 1 to 63 lower-case "
                    + "letters, digits, '-' and '_', starting with a letter or digit")), false);
        }
        if (builtIn(name).isPresent()) {
            throw new Refusal(Refusal.Kind.CONFLICT, "'" + name + "' is a built-in profile and cannot be replaced "
                    + "or deleted; choose another name");
        }
    }

    private Optional<String> timeoutProblem(Duration timeout, TenantPolicy policy) {
        if (timeout.isNegative() || timeout.isZero()) {
            return Optional.of("must be positive");
        }
        if (timeout.compareTo(config.sandbox().maxTimeout()) > 0) {
            return Optional.of("may be at most " + config.sandbox().maxTimeout().toSeconds() + "s");
        }
        if (policy.maxTimeoutSeconds() != null && timeout.toSeconds() > policy.maxTimeoutSeconds()) {
            return Optional.of("may be at most " + policy.maxTimeoutSeconds() + "s for this tenant");
        }
        return Optional.empty();
    }

    private static Optional<Profile> builtIn(String name) {
        return BuiltInProfiles.ALL.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}

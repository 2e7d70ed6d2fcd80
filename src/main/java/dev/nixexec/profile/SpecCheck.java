package dev.nixexec.profile;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.sandbox.SandboxEnv;
import dev.nixexec.tenant.TenantPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one check of a spec, whoever brings it (a profile being defined, a session's inline spec):
 * package names by {@link PackageName}'s grammar, the service's package policy and the tenant's
 * allow and deny lists; env as a job's ({@link SandboxEnv}); {@code network: "full"} only under a
 * tenant policy that allows it; writable paths from {@link WritablePath}. Every problem at once.
 * Whether a package exists is learnt when the environment is built ({@code unknown_package}), as
 * for a job: the name is checked here, never evaluated.
 */
@ApplicationScoped
public class SpecCheck {

    public static final int MAX_PACKAGES = 64;

    private final PackagePolicy servicePackages;
    private final int maxEnvBytes;

    @Inject
    public SpecCheck(NixExecConfig config) {
        this(new PackagePolicy(config.sandbox().packageDenylist().orElse(List.of()), config.sandbox().packageAllowlist()),
                config.sandbox().maxEnvBytes());
    }

    SpecCheck(PackagePolicy servicePackages, int maxEnvBytes) {
        this.servicePackages = servicePackages;
        this.maxEnvBytes = maxEnvBytes;
    }

    /** The spec a client wrote, read and checked against the tenant's policy; refused with every problem. */
    public Spec check(String prefix, SpecBody body, TenantPolicy policy) {
        List<FieldError> errors = new ArrayList<>();
        Optional<Spec> spec = body.read(prefix, errors);
        spec.ifPresent(s -> errors.addAll(problems(prefix, s, policy)));
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        return spec.orElseThrow();
    }

    /** What is wrong with a spec under the tenant's policy; empty when nothing is. */
    public List<FieldError> problems(String prefix, Spec spec, TenantPolicy policy) {
        List<FieldError> errors = new ArrayList<>();
        PackagePolicy tenantPackages = new PackagePolicy(Optional.ofNullable(policy.packageDenylist()).orElse(List.of()),
                Optional.ofNullable(policy.packageAllowlist()));
        if (spec.packages().size() > MAX_PACKAGES) {
            errors.add(new FieldError(prefix + "packages", "at most " + MAX_PACKAGES + " packages"));
        }
        for (int i = 0; i < spec.packages().size(); i++) {
            String raw = spec.packages().get(i);
            String field = prefix + "packages[" + i + "]";
            try {
                PackageName name = PackageName.parse(raw);
                servicePackages.rejection(name).or(() -> tenantPackages.rejection(name))
                        .ifPresent(reason -> errors.add(new FieldError(field, reason)));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError(field, "'" + raw + "': " + e.getMessage()));
            }
        }
        SandboxEnv.problems(spec.env(), maxEnvBytes).forEach(p -> errors.add(new FieldError(prefix + "env", p)));
        if (spec.network() && !policy.networkAllowed()) {
            errors.add(new FieldError(prefix + "network", "network \"full\" needs a tenant policy that allows it "
                    + "(policy.network: true); this tenant's does not"));
        }
        return errors;
    }
}

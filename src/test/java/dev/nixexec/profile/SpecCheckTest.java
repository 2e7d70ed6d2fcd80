package dev.nixexec.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.tenant.TenantPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The one spec check: each refusal names its field and why, all of them at once; a good spec passes whole. */
class SpecCheckTest {

    /** The service denies {@code evil}; 1 KiB of env at most. */
    private final SpecCheck check = new SpecCheck(new PackagePolicy(List.of("evil"), Optional.empty()), 1024);
    private static final TenantPolicy OPEN = new TenantPolicy(null, null, null, true, null, null, null, null);
    private static final TenantPolicy NO_NETWORK = TenantPolicy.defaults();

    private static SpecBody spec(List<String> packages, Map<String, String> env, String network, List<String> writable) {
        return new SpecBody(null, packages, env, network, writable);
    }

    private List<FieldError> refused(SpecBody body, TenantPolicy policy) {
        return assertThrows(InvalidRequestException.class, () -> check.check("spec.", body, policy)).errors();
    }

    @Test
    void networkFullWithoutThePolicyIsRefusedNamingWhy() {
        List<FieldError> errors = refused(spec(List.of("git"), null, "full", null), NO_NETWORK);
        assertEquals(List.of(new FieldError("spec.network", "network \"full\" needs a tenant policy that allows it "
                + "(policy.network: true); this tenant's does not")), errors);
    }

    @Test
    void aWritablePathOutsideTheFourIsRefused() {
        List<FieldError> errors = refused(spec(List.of(), null, null, List.of("/workspace", "/etc", "/nix/store")), OPEN);
        assertEquals(List.of("spec.writable[1]", "spec.writable[2]"), errors.stream().map(FieldError::field).toList());
        assertTrue(errors.get(0).message().contains("'/etc' cannot be made writable; a subset of /workspace, "
                + "/home/sandbox, /cache, /tmp"), errors.toString());
    }

    @Test
    void packageNamesFollowTheGrammarAndBothPolicies() {
        TenantPolicy tenant = new TenantPolicy(null, List.of("git", "python3Packages."), List.of("curl"), true,
                null, null, null, null);
        List<FieldError> errors = refused(spec(List.of("git", "--expr", "evil", "curl", "jq", "python3Packages.numpy",
                "a;b"), null, null, null), tenant);
        assertEquals(Map.of(
                "spec.packages[1]", "'--expr': package name must be a nixpkgs attribute path like python3Packages.numpy "
                        + "(letters, digits, '_' and '-', parts separated by '.', each starting with a letter or '_')",
                "spec.packages[2]", "package 'evil' is denied by policy",
                "spec.packages[3]", "package 'curl' is denied by policy",
                "spec.packages[4]", "package 'jq' is not in the allowed packages",
                "spec.packages[6]", "'a;b': package name must be a nixpkgs attribute path like python3Packages.numpy "
                        + "(letters, digits, '_' and '-', parts separated by '.', each starting with a letter or '_')"),
                Map.ofEntries(errors.stream().map(e -> Map.entry(e.field(), e.message())).toArray(Map.Entry[]::new)));
    }

    @Test
    void envIsCheckedAsAJobsIs() {
        Map<String, String> env = new HashMap<>();
        env.put("lower", "x");
        env.put("LD_PRELOAD", "/x.so");
        env.put("BIG", "x".repeat(2000));
        List<FieldError> errors = refused(spec(List.of(), env, null, null), OPEN);
        assertTrue(errors.stream().allMatch(e -> e.field().equals("spec.env")), errors.toString());
        List<String> messages = errors.stream().map(FieldError::message).toList();
        assertTrue(messages.contains("variable name 'lower' must match [A-Z_][A-Z0-9_]*"), messages.toString());
        assertTrue(messages.contains("variable 'LD_PRELOAD' may not be set"), messages.toString());
        assertTrue(messages.contains("variables total more than 1024 bytes"), messages.toString());
    }

    @Test
    void anEnvVariableWithoutAValueOrANullPackageIsRefusedNotAFailure() {
        Map<String, String> env = new HashMap<>();
        env.put("EMPTY", null);
        List<String> packages = new java.util.ArrayList<>();
        packages.add(null);
        List<FieldError> errors = refused(spec(packages, env, null, null), OPEN);
        assertEquals(List.of("spec.packages", "spec.env"), errors.stream().map(FieldError::field).toList());
    }

    @Test
    void anUnknownNetworkWordAndTooManyPackagesAreRefused() {
        List<String> many = IntStream.range(0, 65).mapToObj(i -> "p" + i).toList();
        List<FieldError> errors = refused(spec(many, null, "on", List.of("/etc")), OPEN);
        assertEquals(List.of(new FieldError("spec.network", "must be \"off\" or \"full\""),
                new FieldError("spec.writable[0]", "'/etc' cannot be made writable; a subset of /workspace, "
                        + "/home/sandbox, /cache, /tmp"),
                new FieldError("spec.packages", "at most 64 packages")), errors,
                "a word that cannot be read leaves the rest to be checked");
    }

    @Test
    void everyProblemComesAtOnce() {
        List<FieldError> errors = refused(spec(List.of("evil"), Map.of("PATH", "/x"), "full", null), NO_NETWORK);
        assertEquals(Set.of("spec.packages[0]", "spec.env", "spec.network"),
                Set.copyOf(errors.stream().map(FieldError::field).toList()));
    }

    @Test
    void aGoodSpecPassesWhole() {
        Spec spec = check.check("", spec(List.of("git", "python3Packages.numpy"), Map.of("FOO", "bar"), "full",
                List.of("/workspace", "/tmp")), OPEN);
        assertEquals(new Spec(List.of("git", "python3Packages.numpy"), Map.of("FOO", "bar"), true,
                Set.of(WritablePath.WORKSPACE, WritablePath.TMP)), spec);
        assertEquals(Spec.ALL_WRITABLE, check.check("", spec(List.of(), null, null, null), NO_NETWORK).writable(),
                "a spec that names no writable paths gets all four");
        assertEquals(Set.of(), check.check("", spec(List.of(), null, "off", List.of()), NO_NETWORK).writable(),
                "an empty list makes every path read-only");
    }
}

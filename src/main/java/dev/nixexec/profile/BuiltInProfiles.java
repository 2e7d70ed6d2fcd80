package dev.nixexec.profile;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** nixo's four profiles, as nixo defines them; package names are nixpkgs attributes. */
final class BuiltInProfiles {

    private static final Set<WritablePath> WORK_AND_TMP = Set.of(WritablePath.WORKSPACE, WritablePath.TMP);

    static final List<Profile> ALL = List.of(
            new Profile("strict", "No network; a shell, coreutils and a CA bundle.",
                    new Spec(List.of("coreutils", "bash", "cacert"), Map.of(), false, WORK_AND_TMP), ProfileLimits.NONE, true),
            new Profile("offline-review", "No network; tools to read and search code (git, grep, sed, jq).",
                    new Spec(List.of("git", "coreutils", "bash", "gnugrep", "gnused", "jq"), Map.of(), false,
                            WORK_AND_TMP), ProfileLimits.NONE, true),
            new Profile("build-install", "Network; node, python, rust, git, gcc and make to build and install.",
                    new Spec(List.of("nodejs", "python3", "rustc", "cargo", "git", "gcc", "gnumake"), Map.of(), true,
                            Spec.ALL_WRITABLE), ProfileLimits.NONE, true),
            new Profile("debug-network", "Network; node, python, curl, netcat and dig to debug connections.",
                    new Spec(List.of("nodejs", "python3", "curl", "netcat", "dig"), Map.of(), true,
                            Spec.ALL_WRITABLE), ProfileLimits.NONE, true));

    private BuiltInProfiles() {
    }
}

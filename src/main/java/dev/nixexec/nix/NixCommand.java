package dev.nixexec.nix;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.ExecutableLookup;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The nix executables and the options every invocation carries. */
@ApplicationScoped
public class NixCommand {

    private final Optional<Path> nix;
    private final Optional<Path> nixStore;
    private final Optional<String> substituters;
    private final List<String> extraOptions;

    public NixCommand(NixExecConfig config) {
        this.nix = ExecutableLookup.find(config.executor().nixCommand());
        this.nixStore = nix.map(p -> p.resolveSibling("nix-store")).filter(p -> p.toFile().canExecute())
                .or(() -> ExecutableLookup.find("nix-store"));
        this.substituters = config.executor().substituters().map(String::strip);
        this.extraOptions = config.executor().nixOptions().orElse(List.of());
        extraOptions.stream().filter(o -> o.indexOf('=') < 1).findFirst().ifPresent(o -> {
            throw new IllegalArgumentException("nixexec.executor.nix-options entries must be name=value, not " + o);
        });
    }

    public Optional<Path> nixPath() {
        return nix;
    }

    public boolean available() {
        return nix.isPresent() && nixStore.isPresent();
    }

    /** {@code nix <subcommand> <common options>}; the caller appends its own arguments. */
    List<String> nix(String... subcommand) throws EnvironmentException {
        List<String> argv = new ArrayList<>();
        argv.add(nix.orElseThrow(() -> new EnvironmentException("nix_unavailable", "nix is not installed or not on PATH"))
                .toString());
        argv.addAll(List.of(subcommand));
        argv.addAll(List.of("--extra-experimental-features", "nix-command flakes"));
        substituters.ifPresent(s -> argv.addAll(List.of("--option", "substituters", s.equals("none") ? "" : s)));
        for (String option : extraOptions) {
            int eq = option.indexOf('=');
            argv.addAll(List.of("--option", option.substring(0, eq).strip(), option.substring(eq + 1).strip()));
        }
        return argv;
    }

    List<String> nixStore(String... arguments) throws EnvironmentException {
        List<String> argv = new ArrayList<>();
        argv.add(nixStore.orElseThrow(() -> new EnvironmentException("nix_unavailable", "nix-store is not installed"))
                .toString());
        argv.addAll(List.of(arguments));
        return argv;
    }
}

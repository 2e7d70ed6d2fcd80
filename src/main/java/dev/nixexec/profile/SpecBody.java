package dev.nixexec.profile;

import dev.nixexec.refusal.FieldError;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A spec as a client writes it: {@code {name?, packages, env?, network?: "off"|"full", writable?:
 * [paths]}}. {@link SpecCheck} turns it into a {@link Spec}; this only reads the words.
 */
public record SpecBody(String name, List<String> packages, Map<String, String> env, String network,
        List<String> writable) {

    /**
     * The spec these words say, what is wrong with them added to {@code errors} (fields under
     * {@code prefix}); a word that cannot be read is left out, so that the rest is still checked.
     * Empty only when a null name or value leaves no spec to check.
     */
    public Optional<Spec> read(String prefix, List<FieldError> errors) {
        boolean unreadable = false;
        boolean full = false;
        if (network != null && !network.equals("off") && !network.equals("full")) {
            errors.add(new FieldError(prefix + "network", "must be \"off\" or \"full\""));
        } else {
            full = "full".equals(network);
        }
        Set<WritablePath> paths = writable == null ? null : EnumSet.noneOf(WritablePath.class);
        for (int i = 0; writable != null && i < writable.size(); i++) {
            String path = writable.get(i);
            Optional<WritablePath> known = WritablePath.of(path);
            if (known.isEmpty()) {
                errors.add(new FieldError(prefix + "writable[" + i + "]", "'" + path + "' cannot be made writable; "
                        + "a subset of " + String.join(", ", WritablePath.paths())));
            } else {
                paths.add(known.get());
            }
        }
        List<String> names = packages == null ? List.of() : new ArrayList<>(packages);
        if (names.contains(null)) {
            errors.add(new FieldError(prefix + "packages", "a package name is null"));
            unreadable = true;
        }
        if (env != null && env.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
            env.forEach((name, value) -> {
                if (name == null || value == null) {
                    errors.add(new FieldError(prefix + "env", "variable '" + name + "' has no value"));
                }
            });
            unreadable = true;
        }
        if (unreadable) {
            return Optional.empty();
        }
        return Optional.of(new Spec(names, env, full, paths));
    }
}

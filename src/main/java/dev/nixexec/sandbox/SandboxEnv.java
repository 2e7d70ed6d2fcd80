package dev.nixexec.sandbox;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Rules for environment variables a request may set inside the sandbox. */
public final class SandboxEnv {

    public static final int MAX_VARIABLES = 128;
    private static final Pattern NAME = Pattern.compile("[A-Z_][A-Z0-9_]{0,127}");
    /** Loader and runtime hooks: refused even though they could only reach sandbox files. */
    private static final List<String> DENIED_PREFIXES = List.of("LD_", "DYLD_", "GCONV_", "MALLOC_");
    private static final Set<String> DENIED = Set.of("GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS",
            "NLSPATH", "TMPDIR", "PATH", "HOME", "USER", "LOGNAME");

    private SandboxEnv() {
    }

    /** One message per bad entry, naming it; empty when the map is acceptable. */
    public static List<String> problems(Map<String, String> env, int maxBytes) {
        List<String> problems = new ArrayList<>();
        if (env.size() > MAX_VARIABLES) {
            problems.add("at most " + MAX_VARIABLES + " variables");
        }
        long bytes = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (name == null || !NAME.matcher(name).matches()) {
                problems.add("variable name '" + name + "' must match [A-Z_][A-Z0-9_]*");
            } else if (DENIED.contains(name) || DENIED_PREFIXES.stream().anyMatch(name::startsWith)) {
                problems.add("variable '" + name + "' may not be set");
            }
            if (value == null) {
                problems.add("variable '" + name + "' has no value");
            } else {
                if (value.indexOf('\0') >= 0) {
                    problems.add("variable '" + name + "' contains a NUL character");
                }
                bytes += name.length() + value.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        if (bytes > maxBytes) {
            problems.add("variables total more than " + maxBytes + " bytes");
        }
        return problems;
    }
}

package dev.nixexec.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The sandbox-exec (SBPL) profile of one run and the {@code -D} parameters it reads. The job's
 * directories reach the profile only as parameters, so the text carries no job path; the store
 * closure is written as escaped string literals. Nothing from the request (code, variables, stdin)
 * is part of either. What each rule is for is in docs/sandbox-macos.md.
 */
public record SeatbeltProfile(String text, Map<String, String> parameters) {

    public static final String CODE_DIR = "CODE_DIR";
    public static final String WORKSPACE_DIR = "WORKSPACE_DIR";
    public static final String TMP_DIR = "TMP_DIR";

    private static final String FIXED_RULES = """
            (version 1)
            (deny default)

            (allow process-fork)
            ; The code's own processes only: never the service or other runs.
            (allow signal (target same-sandbox))
            (allow process-info* (target same-sandbox))
            (allow sysctl-read)
            ; JIT runtimes (V8, LuaJIT) and GHCi's linker abort when they cannot map generated code.
            (allow dynamic-code-generation)
            ; getpwuid() and libSystem notifications (time zone changes).
            (allow mach-lookup
              (global-name "com.apple.system.opendirectoryd.libinfo")
              (global-name "com.apple.system.notification_center"))

            ; What dyld and libSystem load in any process; the dyld shared cache moved between these across releases.
            (allow file-read* file-map-executable
              (subpath "/usr/lib")
              (subpath "/System/Library")
              (subpath "/System/Cryptexes/OS")
              (subpath "/System/Volumes/Preboot/Cryptexes/OS")
              (subpath "/private/var/db/dyld"))
            (allow file-read*
              (subpath "/usr/share/locale")
              (subpath "/usr/share/zoneinfo")
              (subpath "/private/var/db/timezone")
              (literal "/private/etc/localtime")
              (literal "/dev/null")
              (literal "/dev/zero")
              (literal "/dev/random")
              (literal "/dev/urandom"))
            (allow file-write-data (literal "/dev/null"))
            ; lstat of the symlinks and parents that realpath() walks.
            (allow file-read-metadata
              (literal "/etc")
              (literal "/tmp")
              (literal "/var")
              (literal "/dev")
              (path-ancestors "/System/Cryptexes/OS")
              (path-ancestors "/System/Volumes/Preboot/Cryptexes/OS")
              (path-ancestors (param "CODE_DIR"))
              (path-ancestors (param "WORKSPACE_DIR"))
              (path-ancestors (param "TMP_DIR")))

            ; The job: its code read-only, its workspace and tmp read-write. No exec or mapping of code from either.
            (allow file-read* (subpath (param "CODE_DIR")))
            (allow file-read* file-write* (subpath (param "WORKSPACE_DIR")) (subpath (param "TMP_DIR")))
            """;

    private static final String NETWORK_RULES = """

            ; Network was requested: outbound IP, and the system resolver (mDNSResponder) for DNS.
            (allow network-outbound (remote ip))
            (allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))
            (allow mach-lookup
              (global-name "com.apple.dnssd.service")
              (global-name "com.apple.SystemConfiguration.DNSConfiguration"))
            (allow file-read*
              (literal "/private/etc/hosts")
              (literal "/private/etc/resolv.conf")
              (literal "/private/var/run/resolv.conf")
              (literal "/private/etc/services")
              (literal "/private/etc/protocols"))
            """;

    public SeatbeltProfile {
        parameters = Collections.unmodifiableMap(new TreeMap<>(parameters));
    }

    /** The job's directories, as real paths: Seatbelt matches resolved paths (/private/var, not /var). */
    public record JobDirectories(Path code, Path workspace, Path tmp) {

        public static JobDirectories in(Path jobDir) {
            return new JobDirectories(jobDir.resolve("code"), jobDir.resolve("workspace"), jobDir.resolve("tmp"));
        }
    }

    /**
     * @throws IllegalArgumentException when a closure path or job directory is not absolute and
     *         normal, contains a control character, or a closure path is not an entry of the
     *         environment's store directory
     */
    public static SeatbeltProfile of(SandboxSpec spec, JobDirectories dirs) {
        Path storeDir = storeDirectory(spec.environmentPath());
        Set<String> storePaths = new LinkedHashSet<>();
        storePaths.add(spec.environmentPath());
        storePaths.addAll(spec.closure());

        StringBuilder text = new StringBuilder(FIXED_RULES);
        text.append("\n; The environment's store closure: read, map and exec; nothing else of the store.\n");
        text.append("(allow file-read-metadata");
        for (Path p = storeDir; p != null; p = p.getParent()) {
            text.append(" (literal ").append(literal(p.toString())).append(')');
        }
        text.append(")\n");
        // One rule per path: a single rule with every path overflows SBPL's 64 KiB pattern limit on large closures.
        for (String path : storePaths) {
            requireStoreEntry(path, storeDir);
            text.append("(allow file-read* file-map-executable process-exec (subpath ").append(literal(path)).append("))\n");
        }
        if (spec.network()) {
            text.append(NETWORK_RULES);
        }
        return new SeatbeltProfile(text.toString(), Map.of(
                CODE_DIR, checkedPath(dirs.code().toString()),
                WORKSPACE_DIR, checkedPath(dirs.workspace().toString()),
                TMP_DIR, checkedPath(dirs.tmp().toString())));
    }

    /** The {@code -D KEY=VALUE} options for sandbox-exec, in key order. */
    public List<String> parameterOptions() {
        List<String> options = new ArrayList<>();
        parameters.forEach((key, value) -> options.addAll(List.of("-D", key + "=" + value)));
        return options;
    }

    /** An SBPL string literal: quoted, with {@code \} and {@code "} escaped; control characters are refused. */
    static String literal(String path) {
        checkedPath(path);
        return '"' + path.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static Path storeDirectory(String environmentPath) {
        Path storeDir = Path.of(checkedPath(environmentPath)).getParent();
        if (storeDir == null || storeDir.getParent() == null) {
            throw new IllegalArgumentException("environment path is not inside a store directory: " + environmentPath);
        }
        return storeDir;
    }

    /** Each closure path must name one entry of the store directory; "/" or a home directory never gets in. */
    private static void requireStoreEntry(String path, Path storeDir) {
        Path entry = Path.of(checkedPath(path));
        if (!storeDir.equals(entry.getParent()) || entry.getFileName().toString().startsWith(".")) {
            throw new IllegalArgumentException("not an entry of " + storeDir + ": " + path);
        }
    }

    /** Absolute, normal (no "..", "//" or trailing "/") and free of control characters, NUL included. */
    private static String checkedPath(String path) {
        if (path.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("path contains a control character: " + path.replaceAll("\\p{Cntrl}", "?"));
        }
        Path parsed = Path.of(path);
        if (!parsed.isAbsolute() || !parsed.normalize().toString().equals(path)) {
            throw new IllegalArgumentException("path must be absolute and normal: " + path);
        }
        return path;
    }
}

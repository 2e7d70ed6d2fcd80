package dev.nixexec.config;

import io.quarkus.runtime.configuration.DurationConverter;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a nix-exec YAML config file into configuration properties. The file has nix-exec's shape
 * ({@code server:}, {@code sandbox:}, {@code executor:}, {@code logging:}, snake_case keys), and
 * every other {@code nixexec.*} setting may be written the same way: the YAML path of
 * {@code nixexec.jobs.max-queued} is {@code jobs: {max_queued: ...}}. An unknown key, a value of
 * the wrong type, or one outside the bounds {@link NixExecConfig} declares ({@link OneOf},
 * {@link NonZero}) is a {@link ConfigFileException} naming the file and the key.
 */
public final class NixExecYaml {

    private static final String JSON_LOGS = "quarkus.log.console.json.enabled";
    private static final Map<String, String> LEVELS = Map.of(
            "debug", "DEBUG", "info", "INFO", "warning", "WARN", "warn", "WARN", "error", "ERROR");

    /** nix-exec's own keys that set no nixexec.* setting of the same name. */
    private static final java.util.Set<String> NIX_EXEC_KEYS = java.util.Set.of(
            "server.name", "sandbox.workspace_path", "logging.level", "logging.format");

    private NixExecYaml() {
    }

    /** The properties this file sets, in file order. */
    public static Map<String, String> read(Path file) {
        Object root;
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = new Yaml(new SafeConstructor(options)).load(reader);
        } catch (IOException e) {
            throw new ConfigFileException(file, "(file)", "cannot be read: " + e.getMessage());
        } catch (YAMLException e) {
            throw new ConfigFileException(file, "(file)", "is not valid YAML: " + e.getMessage().replace('\n', ' '));
        }
        return translate(root, file);
    }

    /** The properties of an already parsed document; {@code file} is only named in errors. */
    public static Map<String, String> translate(Object root, Path file) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (root == null) {
            return properties;
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new ConfigFileException(file, "(document)", "must be a mapping of sections such as sandbox: and executor:");
        }
        walk(map, "", file, properties);
        return properties;
    }

    private static void walk(Map<?, ?> map, String path, Path file, Map<String, String> into) {
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String key = path + String.valueOf(entry.getKey());
            Object value = entry.getValue();
            if (value instanceof Map<?, ?> section) {
                walk(section, key + ".", file, into);
            } else {
                put(key, value, file, into);
            }
        }
    }

    private static void put(String key, Object value, Path file, Map<String, String> into) {
        if (value == null) {
            // nix-exec's files write null for "the default" (substituters: null is the system's own)
            if (!NIX_EXEC_KEYS.contains(key)) {
                putSetting(key, null, file, new LinkedHashMap<>());
            }
            return;
        }
        switch (key) {
            case "server.name" -> into.put("quarkus.mcp.server.server-info.name", scalar(key, value, file));
            case "sandbox.workspace_path" -> {
                // The sandbox's working directory is fixed; nix-exec's default ("": a fresh directory per
                // run, which every run here has at /workspace) and /workspace itself are accepted.
                String path = scalar(key, value, file);
                if (!path.isEmpty() && !"/workspace".equals(path)) {
                    throw new ConfigFileException(file, key,
                            "'" + path + "' is not \"\" or /workspace (the sandbox's working directory is fixed)");
                }
            }
            case "logging.level" -> {
                String level = LEVELS.get(scalar(key, value, file).toLowerCase(Locale.ROOT));
                if (level == null) {
                    throw new ConfigFileException(file, key, "'" + value + "' is not one of debug, info, warning, error");
                }
                into.put("quarkus.log.level", level);
                into.put("quarkus.log.category.\"dev.nixexec\".level", level);
            }
            case "logging.format" -> {
                String format = scalar(key, value, file);
                if (!format.equals("json") && !format.equals("text")) {
                    throw new ConfigFileException(file, key, "'" + format + "' is not one of text, json");
                }
                into.put(JSON_LOGS, Boolean.toString(format.equals("json")));
            }
            default -> putSetting(key, value, file, into);
        }
    }

    private static void putSetting(String key, Object value, Path file, Map<String, String> into) {
        String property = "nixexec." + key.replace('_', '-');
        SettingsCatalog.Setting setting = SettingsCatalog.find(property)
                .filter(s -> !s.property().equals("nixexec.config"))
                .orElseThrow(() -> new ConfigFileException(file, key, "unknown key"));
        if (value == null) {
            return;
        }
        String text;
        if (setting.list()) {
            text = list(key, value, file, ",");
        } else if (property.equals("nixexec.executor.substituters") && value instanceof List<?>) {
            text = list(key, value, file, " ");
        } else {
            text = scalar(key, value, file);
            if (setting.type() == Path.class) {
                if (text.isEmpty()) {
                    return; // nix-exec's "" for a directory: the default one
                }
                text = expandHome(text);
            }
            check(setting, key, text, file);
        }
        into.put(property, text);
    }

    private static void check(SettingsCatalog.Setting setting, String key, String text, Path file) {
        Class<?> type = setting.type();
        if (type == Duration.class) {
            Optional<Duration> duration = parse(() -> DurationConverter.parseDuration(text));
            if (duration.isEmpty() || duration.get().isNegative()) {
                throw new ConfigFileException(file, key, "'" + text + "' is not a duration (e.g. 30s, 10m, 6h, or seconds)");
            }
            if (setting.nonZero() && duration.get().isZero()) {
                throw new ConfigFileException(file, key, "'" + text + "' must be longer than 0");
            }
        } else if (type == int.class || type == long.class) {
            Optional<Long> number = parse(() -> type == int.class ? (long) Integer.parseInt(text) : Long.parseLong(text));
            int least = setting.nonZero() ? 1 : 0;
            if (number.isEmpty() || number.get() < least) {
                throw new ConfigFileException(file, key, "'" + text + "' is not a whole number >= " + least);
            }
        } else if (!setting.allowed().isEmpty()) {
            if (!setting.allowed().contains(text)) {
                throw new ConfigFileException(file, key, "'" + text + "' is not one of " + String.join(", ", setting.allowed()));
            }
        } else if (type == boolean.class) {
            if (!text.equals("true") && !text.equals("false")) {
                throw new ConfigFileException(file, key, "'" + text + "' is not true or false");
            }
        } else if (text.isBlank()) {
            throw new ConfigFileException(file, key, "is empty (remove the key to keep the default)");
        }
    }

    /** {@code ~} and {@code ~/...} are the user's home, as nix-exec read them (not a directory named ~). */
    static String expandHome(String path) {
        if (path.equals("~") || path.startsWith("~/")) {
            return System.getProperty("user.home") + path.substring(1);
        }
        return path;
    }

    private static <T> Optional<T> parse(java.util.function.Supplier<T> parser) {
        try {
            return Optional.ofNullable(parser.get());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String scalar(String key, Object value, Path file) {
        if (value instanceof List<?>) {
            throw new ConfigFileException(file, key, "must be a single value, not a list");
        }
        return String.valueOf(value);
    }

    private static String list(String key, Object value, Path file, String separator) {
        if (!(value instanceof List<?> items)) {
            return String.valueOf(value);
        }
        for (Object item : items) {
            if (item == null || item instanceof Map<?, ?> || item instanceof List<?>
                    || (separator.equals(",") && String.valueOf(item).contains(","))) {
                throw new ConfigFileException(file, key, "items must be plain names, got '" + item + "'");
            }
        }
        return items.stream().map(String::valueOf).collect(Collectors.joining(separator));
    }
}

package dev.nixexec.cli;

import dev.nixexec.config.ConfigFileException;
import dev.nixexec.config.ConfigFileSearch;
import dev.nixexec.config.NixExecYaml;
import io.quarkus.runtime.Quarkus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code nix-exec serve}: the service, with nix-exec's flags ({@link ServeFlag}) as its strongest
 * configuration source. The flags are checked as the YAML file's keys are, before anything
 * starts, and become system properties (ordinal 400: above environment variables and the file).
 */
final class ServeCommand implements Callable<Integer> {

    private static final String SET = "-D";

    private CommandSpec spec;

    static CommandSpec spec() {
        ServeCommand command = new ServeCommand();
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name("serve").mixinStandardHelpOptions(true)
                .versionProvider(new Version());
        spec.usageMessage().description("Start the HTTP service (for systemd and the NixOS module).",
                "Flags are the strongest configuration source: over -D given to java, NIXEXEC_* variables and the YAML file.");
        spec.usageMessage().footer("", "Examples:", "  ${ROOT-COMMAND-NAME} serve -timeout 45s -name my-fleet",
                "  ${ROOT-COMMAND-NAME} serve -config /etc/nix-exec/config.yaml -Dnixexec.node.role=worker");
        addFlags(spec);
        command.spec = spec;
        return spec;
    }

    /** nix-exec's flags ({@link ServeFlag}) and {@code -DSETTING=VALUE}, on {@code serve} and on the stdio server. */
    static void addFlags(CommandSpec spec) {
        for (ServeFlag flag : ServeFlag.ALL) {
            spec.addOption(OptionSpec.builder(flag.spellings()).paramLabel(flag.label())
                    .description(flag.description()).type(String.class).build());
            // earlier names still work, out of the help, which shows nix-exec's
            for (String alias : flag.aliases()) {
                spec.addOption(OptionSpec.builder(ServeFlag.spellings(alias)).paramLabel(flag.label())
                        .hidden(true).type(String.class).build());
            }
        }
        spec.addOption(OptionSpec.builder(SET).paramLabel("SETTING=VALUE").type(Map.class)
                .auxiliaryTypes(String.class, String.class)
                .description("any setting (docs/configuration.md), e.g. -Dnixexec.jobs.lease=45s").build());
    }

    @Override
    public Integer call() {
        Map<String, String> properties = properties(spec.commandLine().getParseResult());
        checkConfigFile(properties);
        properties.forEach(System::setProperty);
        Quarkus.run();
        return Exit.OK.code;
    }

    /**
     * Reads the YAML file the service is about to read (the same search), so that a bad one stops
     * the command with one line and exit 78 before the framework starts and logs anything.
     */
    static Map<String, String> checkConfigFile(Map<String, String> properties) {
        String explicit = properties.getOrDefault("nixexec.config",
                System.getProperty("nixexec.config", System.getenv("NIXEXEC_CONFIG")));
        try {
            return ConfigFileSearch.ofProcess(java.util.Optional.ofNullable(explicit)).find().map(NixExecYaml::read).orElse(Map.of());
        } catch (ConfigFileException e) {
            throw new CommandFailure(Exit.CONFIG, Printable.line(e.getMessage().replaceFirst("^nix-exec ", "")));
        }
    }

    /** The system properties the given flags of {@code serve} set; a bad value is a {@link CommandFailure} naming the flag. */
    static Map<String, String> properties(ParseResult flags) {
        return properties(flags, "serve ");
    }

    /** The same, the flags' command named by {@code command} ("serve ", or "" for nix-exec itself) in errors. */
    static Map<String, String> properties(ParseResult flags, String command) {
        Map<String, String> properties = new LinkedHashMap<>();
        Map<String, Object> yaml = new LinkedHashMap<>();
        Map<String, String> yamlFlags = new LinkedHashMap<>();
        for (ServeFlag flag : ServeFlag.ALL) {
            String value = flags.matchedOptionValue(flag.flag(), null);
            for (String alias : flag.aliases()) {
                if (value == null) {
                    value = flags.matchedOptionValue("-" + alias, null);
                }
            }
            if (value == null) {
                continue;
            }
            if (flag.yamlKey() != null) {
                put(yaml, flag.yamlKey(), switch (flag.name()) {
                    case "substituters" -> Arrays.asList(value.strip().split("[,\\s]+"));
                    case "package-denylist" -> Arrays.stream(value.split(",")).map(String::strip).filter(n -> !n.isEmpty()).toList();
                    default -> value;
                });
                yamlFlags.put(flag.yamlKey(), flag.flag());
            } else {
                properties.put(flag.property(), checked(flag, value, command));
            }
        }
        try {
            properties.putAll(NixExecYaml.translate(yaml, Path.of("(flags)")));
        } catch (ConfigFileException e) {
            throw new CommandFailure(Exit.USAGE, command + yamlFlags.getOrDefault(e.key(), e.key()) + ": " + e.problem());
        }
        Map<String, String> settings = flags.matchedOptionValue(SET, Map.of());
        settings.forEach((name, value) -> {
            if (name.isBlank()) {
                throw new CommandFailure(Exit.USAGE, command + "-D: give -DSETTING=VALUE");
            }
            properties.putIfAbsent(name, value);
        });
        return properties;
    }

    private static String checked(ServeFlag flag, String value, String command) {
        switch (flag.name()) {
            case "config" -> {
                if (!Files.isRegularFile(Path.of(value))) {
                    throw new CommandFailure(Exit.USAGE, command + "-config: " + value + " is not a file");
                }
            }
            case "port" -> {
                if (!value.matches("[0-9]{1,5}") || Integer.parseInt(value) > 65535) {
                    throw new CommandFailure(Exit.USAGE, command + "-port: '" + value + "' is not a port (0 to 65535)");
                }
            }
            default -> {
                if (value.isBlank()) {
                    throw new CommandFailure(Exit.USAGE, command + flag.flag() + ": is empty");
                }
            }
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> root, String key, Object value) {
        Map<String, Object> section = root;
        String[] parts = key.split("\\.");
        for (int i = 0; i < parts.length - 1; i++) {
            section = (Map<String, Object>) section.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>());
        }
        section.put(parts[parts.length - 1], value);
    }
}

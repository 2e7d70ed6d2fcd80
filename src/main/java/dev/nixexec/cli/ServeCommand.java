package dev.nixexec.cli;

import dev.nixexec.config.ConfigFileException;
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
                .versionProvider(new NixExecCommand.Version());
        spec.usageMessage().description("Start the service (also what nix-exec with no arguments does).",
                "Flags are the strongest configuration source: over -D given to java, NIXEXEC_* variables and the YAML file.");
        spec.usageMessage().footer("", "Examples:", "  ${ROOT-COMMAND-NAME} serve -timeout 45s -name my-fleet",
                "  ${ROOT-COMMAND-NAME} serve -config /etc/nix-exec/config.yaml -Dnixexec.node.role=worker");
        for (ServeFlag flag : ServeFlag.ALL) {
            spec.addOption(OptionSpec.builder(flag.flag(), "-" + flag.flag()).paramLabel(flag.label())
                    .description(flag.description()).type(String.class).build());
        }
        spec.addOption(OptionSpec.builder(SET).paramLabel("SETTING=VALUE").type(Map.class)
                .auxiliaryTypes(String.class, String.class)
                .description("any setting (docs/configuration.md), e.g. -Dnixexec.jobs.lease=45s").build());
        command.spec = spec;
        return spec;
    }

    @Override
    public Integer call() {
        properties(spec.commandLine().getParseResult()).forEach(System::setProperty);
        Quarkus.run();
        return Exit.OK.code;
    }

    /** The system properties the given flags set; a bad value is a {@link CommandFailure} naming the flag. */
    static Map<String, String> properties(ParseResult flags) {
        Map<String, String> properties = new LinkedHashMap<>();
        Map<String, Object> yaml = new LinkedHashMap<>();
        Map<String, String> yamlFlags = new LinkedHashMap<>();
        for (ServeFlag flag : ServeFlag.ALL) {
            String value = flags.matchedOptionValue(flag.flag(), null);
            if (value == null) {
                continue;
            }
            if (flag.yamlKey() != null) {
                put(yaml, flag.yamlKey(), flag.name().equals("substituters")
                        ? Arrays.asList(value.strip().split("[,\\s]+")) : value);
                yamlFlags.put(flag.yamlKey(), flag.flag());
            } else {
                properties.put(flag.property(), checked(flag, value));
            }
        }
        try {
            properties.putAll(NixExecYaml.translate(yaml, Path.of("(flags)")));
        } catch (ConfigFileException e) {
            throw new CommandFailure(Exit.USAGE, "serve " + yamlFlags.getOrDefault(e.key(), e.key()) + ": " + e.problem());
        }
        Map<String, String> settings = flags.matchedOptionValue(SET, Map.of());
        settings.forEach((name, value) -> {
            if (name.isBlank()) {
                throw new CommandFailure(Exit.USAGE, "serve -D: give -DSETTING=VALUE");
            }
            properties.putIfAbsent(name, value);
        });
        return properties;
    }

    private static String checked(ServeFlag flag, String value) {
        switch (flag.name()) {
            case "config" -> {
                if (!Files.isRegularFile(Path.of(value))) {
                    throw new CommandFailure(Exit.USAGE, "serve -config: " + value + " is not a file");
                }
            }
            case "port" -> {
                if (!value.matches("[0-9]{1,5}") || Integer.parseInt(value) > 65535) {
                    throw new CommandFailure(Exit.USAGE, "serve -port: '" + value + "' is not a port (0 to 65535)");
                }
            }
            default -> {
                if (value.isBlank()) {
                    throw new CommandFailure(Exit.USAGE, "serve " + flag.flag() + ": is empty");
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

package dev.nixexec.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The nix-exec YAML config file (see {@link ConfigFileSearch} for where it is looked for and
 * {@link NixExecYaml} for its shape) as a configuration source. Its ordinal, 260, puts it above
 * application.properties (250) and below environment variables (300) and system properties (400).
 * A factory, so that {@code nixexec.config} may come from any of those sources.
 */
public class NixExecYamlSource implements ConfigSourceFactory {

    public static final int ORDINAL = 260;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return load(context).<Iterable<ConfigSource>>map(List::of).orElse(List.of());
    }

    /** The source of the file this context points at, if there is a file. */
    static Optional<ConfigSource> load(ConfigSourceContext context) {
        ConfigValue explicit = context.getValue("nixexec.config");
        Optional<Path> file = ConfigFileSearch.ofProcess(Optional.ofNullable(explicit).map(ConfigValue::getValue)).find();
        return file.map(path -> source(path, NixExecYaml.read(path)));
    }

    /**
     * A setting as the finished configuration will see it, for other factories: sources made by
     * factories are invisible to them, so the YAML file is consulted directly (it wins over
     * application.properties, loses to environment variables and system properties).
     */
    public static Optional<String> value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        if (value != null && value.getValue() != null && !value.getValue().isBlank()
                && value.getSourceOrdinal() >= ORDINAL) {
            return Optional.of(value.getValue());
        }
        Optional<String> fromFile = load(context).map(source -> source.getValue(name));
        if (fromFile.isPresent()) {
            return fromFile;
        }
        return value == null || value.getValue() == null || value.getValue().isBlank()
                ? Optional.empty()
                : Optional.of(value.getValue());
    }

    static ConfigSource source(Path file, Map<String, String> properties) {
        return new PropertiesConfigSource(properties, "nix-exec YAML " + file, ORDINAL);
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }
}

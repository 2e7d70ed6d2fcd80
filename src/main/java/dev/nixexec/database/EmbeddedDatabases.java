package dev.nixexec.database;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The embedded PostgreSQL servers this JVM runs, one per data directory. A process-wide registry
 * on purpose: the framework may build its configuration (and so {@link EmbeddedDatabaseSource})
 * more than once per start, even from several class loaders (tests), and every copy must find the
 * one server that owns the directory. The URL is therefore also published as a system property;
 * the password stays in its 0600 file, which every copy reads.
 */
public enum EmbeddedDatabases {
    INSTANCE;

    private static final Logger LOG = Logger.getLogger(EmbeddedDatabases.class);

    /** How the service connects: over the server's Unix socket, as its schema's owner (no superuser). */
    public record Connection(String url, String user, String password) {
        @Override
        public String toString() {
            return "Connection[url=" + url + ", user=" + user + "]";
        }
    }

    private final Map<Path, EmbeddedPostgresServer> running = new HashMap<>();

    /** How to connect to the server for this directory, started if no class loader of this JVM has. */
    public Connection connection(Path dataDir) {
        String published = System.getProperty(property(dataDir));
        String url = published != null ? published : start(dataDir).url();
        return new Connection(url, EmbeddedPostgresServer.OWNER, PostgresPasswords.of(dataDir, EmbeddedPostgresServer.OWNER));
    }

    private static String property(Path dataDir) {
        return "nix-exec-embedded-postgres:" + dataDir;
    }

    private synchronized EmbeddedPostgresServer start(Path dataDir) {
        EmbeddedPostgresServer server = running.get(dataDir);
        if (server != null) {
            return server;
        }
        server = new EmbeddedPostgresServer(dataDir);
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL in " + dataDir + ": " + e.getMessage(), e);
        }
        running.put(dataDir, server);
        System.setProperty(property(dataDir), server.url());
        return server;
    }

    /** Stops every server this JVM started. */
    public synchronized void stopAll() {
        running.forEach((dir, server) -> {
            System.clearProperty(property(dir));
            server.stop();
            LOG.infof("embedded PostgreSQL in %s stopped", dir);
        });
        running.clear();
    }
}

package dev.nixexec.database;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The service's own embedded PostgreSQL ({@link EmbeddedPostgresServer}) for database tests,
 * started apart from {@link EmbeddedDatabases}, whose servers every application stop in the same
 * JVM stops.
 */
public final class EmbeddedPostgresForTests {

    private EmbeddedPostgresForTests() {
    }

    /** A stopped server's connection settings are void: the caller stops it when done. */
    public record Server(EmbeddedDatabases.Connection connection, Runnable stop) {
    }

    /** Starts a server with its data in {@code dataDir} (its state directory is the parent). */
    public static Server start(Path dataDir) throws IOException {
        EmbeddedPostgresServer server = new EmbeddedPostgresServer(dataDir);
        server.start();
        return new Server(new EmbeddedDatabases.Connection(server.url(), EmbeddedPostgresServer.OWNER,
                PostgresPasswords.of(dataDir, EmbeddedPostgresServer.OWNER)), server::stop);
    }
}

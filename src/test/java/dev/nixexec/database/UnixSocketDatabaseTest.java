package dev.nixexec.database;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.FreshStateDirs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDBC URL shape the NixOS module uses for database.createLocally (peer authentication needs
 * the Unix socket, which the PostgreSQL driver reaches through UnixSocketFactory) connects for real.
 */
class UnixSocketDatabaseTest {

    @TempDir
    Path dir;

    @Test
    void connectsOverTheUnixSocket() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(dir.resolve("data"))
                .setOverrideWorkingDirectory(FreshStateDirs.libraryBinaries().toFile())
                .setServerConfig("unix_socket_directories", dir.toString())
                .start()) {
            // as in nixos/module.nix, localDatabaseUrl
            String url = "jdbc:postgresql://localhost/postgres"
                    + "?socketFactory=dev.nixexec.database.UnixSocketFactory"
                    + "&socketFactoryArg=" + dir.resolve(".s.PGSQL." + postgres.getPort())
                    + "&user=postgres";
            try (Connection connection = DriverManager.getConnection(url);
                    ResultSet rs = connection.createStatement().executeQuery(
                            "select inet_server_addr() is null as over_socket")) {
                rs.next();
                assertEquals(true, rs.getBoolean("over_socket"), "connected over TCP instead of the socket");
            }
        }
    }
}

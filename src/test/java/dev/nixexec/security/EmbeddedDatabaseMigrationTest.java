package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.database.EmbeddedDatabases;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A state directory made by an older version (the library's initdb with trust, a TCP listener,
 * 0777 binaries, tables owned by the superuser) is locked down on the next start, and its data
 * stays: the owner role reads it and, as Flyway will, alters its tables.
 */
class EmbeddedDatabaseMigrationTest {

    @Test
    void aTrustingDataDirectoryIsLockedDownAndKeepsItsData() throws Exception {
        Path state = Files.createTempDirectory(Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target"), "old-state-");
        Path data = state.resolve("postgres");
        int oldPort;
        try (EmbeddedPostgres old = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
                .setOverrideWorkingDirectory(state.resolve("postgres-binaries").toFile()).start();
                Connection c = old.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            oldPort = old.getPort();
            s.execute("CREATE TABLE jobs (id bigserial PRIMARY KEY, secret text)");
            s.execute("INSERT INTO jobs (secret) VALUES ('env value of tenant a')");
        }
        assertTrue(Files.readString(data.resolve("pg_hba.conf")).contains("trust"), "the old layout trusts");

        try {
            EmbeddedDatabases.Connection connection = EmbeddedDatabases.INSTANCE.connection(data);
            for (String line : Files.readAllLines(data.resolve("pg_hba.conf"))) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    assertEquals("local all all scram-sha-256", line.trim(), "pg_hba.conf");
                }
            }
            var postmaster = EmbeddedDatabaseProbe.Postmaster.of(data);
            assertEquals(Set.of(), EmbeddedDatabaseProbe.tcpListenPorts(postmaster.pid()), "listens on TCP");
            assertTrue(EmbeddedDatabaseProbe.passwordlessTcpLogin(oldPort, "postgres").isPresent(), "the old port lets one in");

            try (Connection c = DriverManager.getConnection(connection.url(), connection.user(), connection.password());
                    Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT secret, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) FROM jobs")) {
                    assertTrue(rs.next());
                    assertEquals("env value of tenant a", rs.getString(1));
                    assertFalse(rs.getBoolean(2), "the service's role is a superuser");
                }
                s.execute("ALTER TABLE jobs ADD COLUMN note text");
                s.execute("INSERT INTO jobs (secret) VALUES ('new')");
                s.execute("CREATE TABLE later (id int)");
            }

            Set<PosixFilePermission> open = Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
            try (Stream<Path> all = Files.walk(state.resolve("postgres-binaries"))) {
                for (Path p : all.filter(p -> !Files.isSymbolicLink(p)).toList()) {
                    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                    assertTrue(mode.stream().noneMatch(open::contains), p + " " + PosixFilePermissions.toString(mode));
                }
            }
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("postgres.pgpass"))));
            List<String> socketDir = List.of(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(postmaster.socketDir()))));
            assertEquals(List.of("rwx------"), socketDir, postmaster.socketDir());
        } finally {
            EmbeddedDatabases.INSTANCE.stopAll();
        }

        // a second start finds its passwords and the owner role as they are
        try {
            EmbeddedDatabases.Connection again = EmbeddedDatabases.INSTANCE.connection(data);
            try (Connection c = DriverManager.getConnection(again.url(), again.user(), again.password());
                    ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM jobs")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getInt(1));
            }
        } finally {
            EmbeddedDatabases.INSTANCE.stopAll();
            try (Stream<Path> all = Files.walk(state)) {
                all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}

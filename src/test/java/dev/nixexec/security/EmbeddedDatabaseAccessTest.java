package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Was a finding: the embedded PostgreSQL trusted every login on 127.0.0.1 (and on a socket in
 * /tmp), so any local user, or a job with network access, was its superuser and could read every
 * tenant's data and run programs as the service (COPY ... TO PROGRAM). Now it listens on a Unix
 * socket in a directory only the service can enter, wants a password, and the service connects as
 * a role that owns the schema but is no superuser.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class EmbeddedDatabaseAccessTest {

    @Inject
    StatePaths paths;

    @Inject
    AgroalDataSource db;

    private Path dataDir() throws SQLException {
        try (Connection c = db.getConnection()) {
            // started by the datasource; the test profile uses the embedded database
            assertTrue(c.getMetaData().getURL().startsWith("jdbc:postgresql:"));
        }
        return paths.stateDir().resolve("postgres");
    }

    @Test
    void noPasswordlessLoginOverTcp() throws Exception {
        var postmaster = EmbeddedDatabaseProbe.Postmaster.of(dataDir());
        Set<Integer> ports = EmbeddedDatabaseProbe.tcpListenPorts(postmaster.pid());
        for (int port : ports) {
            for (String user : List.of("postgres", "nixexec")) {
                var refused = EmbeddedDatabaseProbe.passwordlessTcpLogin(port, user);
                assertTrue(refused.isPresent(), "logged in as " + user + " on 127.0.0.1:" + port + " without a password");
            }
        }
        assertEquals(Set.of(), ports, "the embedded PostgreSQL listens on TCP");
        assertEquals("", postmaster.listen(), "listen_addresses in postmaster.pid");
    }

    @Test
    void anotherOsUserCannotReachTheSocket() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "switching to another uid needs root");
        var postmaster = EmbeddedDatabaseProbe.Postmaster.of(dataDir());
        assertTrue(Files.exists(postmaster.socket(), LinkOption.NOFOLLOW_LINKS), "no socket at " + postmaster.socket());
        String outcome = EmbeddedDatabaseProbe.connectAsNobody(postmaster.socket());
        assertTrue(outcome.startsWith("refused: Permission denied"), "uid 65534 on " + postmaster.socket() + ": " + outcome);
    }

    @Test
    void theServiceRoleIsNoSuperuserAndCannotRunPrograms() throws Exception {
        Path marker = Files.createTempDirectory("nixexec-copy-program-").resolve("ran");
        try (Connection c = db.getConnection()) {
            try (ResultSet rs = c.createStatement().executeQuery(
                    "select rolsuper, current_user from pg_roles where rolname = current_user")) {
                assertTrue(rs.next());
                assertFalse(rs.getBoolean(1), "the service connects as superuser " + rs.getString(2));
            }
            assertThrows(SQLException.class, () -> c.createStatement().execute(
                    "COPY (SELECT 1) TO PROGRAM 'touch " + marker + "'"));
            assertFalse(Files.exists(marker), "COPY TO PROGRAM ran a program as the service");
        } finally {
            Files.deleteIfExists(marker);
            Files.deleteIfExists(marker.getParent());
        }
    }

    @Test
    void stateAndBinariesArePrivate() throws Exception {
        Path state = dataDir().getParent();
        String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(state, LinkOption.NOFOLLOW_LINKS));
        if ("root".equals(System.getProperty("user.name"))) {
            // a root service's runs (other uids) pass through it to a jobs directory inside; nothing more
            assertTrue(perms.matches("rwx--[x-]--[x-]"), state + " is " + perms);
            if (paths.jobsDir().startsWith(state)) {
                assertEquals("rwx--x--x", perms, state.toString());
            }
        } else {
            assertEquals("rwx------", perms, state.toString());
        }

        Path binaries = state.resolve("postgres-binaries");
        assertTrue(Files.isDirectory(binaries, LinkOption.NOFOLLOW_LINKS), binaries.toString());
        try (Stream<Path> all = Files.walk(binaries)) {
            for (Path p : all.toList()) {
                if (Files.isSymbolicLink(p)) {
                    continue;
                }
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                assertFalse(mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE),
                        p + " is writable by others: " + PosixFilePermissions.toString(mode));
                assertEquals(System.getProperty("user.name"), Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName(), p.toString());
            }
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("postgres"))));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("postgres-socket"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("postgres.pgpass"))));
    }
}

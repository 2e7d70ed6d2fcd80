package dev.nixexec.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.nixexec.testing.FreshStateDirs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V22 adds the operator role to a database that has keys: every existing key keeps its row and its
 * role (an admin key stays an admin key, promoted by no one but the start-up's bootstrap check),
 * and the role column still refuses anything but the four roles.
 */
class OperatorRoleMigrationTest {

    @TempDir
    Path dir;

    @Test
    void existingKeysKeepTheirRolesAndOperatorKeysCanBeStored() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("data"))
                .setOverrideWorkingDirectory(FreshStateDirs.libraryBinaries().toFile()).start()) {
            DataSource db = postgres.getPostgresDatabase();
            flyway(db).target("21").load().migrate();
            UUID tenant = UUID.randomUUID();
            try (Connection c = db.getConnection()) {
                execute(c, "INSERT INTO tenants (id, name) VALUES (?, 'default')", tenant);
                for (String role : List.of("admin", "member", "auditor")) {
                    assertThrows(SQLException.class, () -> key(c, tenant, "operator"), "before V22 there is no operator");
                    key(c, tenant, role);
                }
            }
            flyway(db).load().migrate();
            try (Connection c = db.getConnection()) {
                assertEquals(List.of("admin", "auditor", "member"), roles(c));
                key(c, tenant, "operator");
                assertThrows(SQLException.class, () -> key(c, tenant, "root"));
                assertEquals(List.of("admin", "auditor", "member", "operator"), roles(c));
            }
        }
    }

    private static org.flywaydb.core.api.configuration.FluentConfiguration flyway(DataSource db) {
        return Flyway.configure().dataSource(db).locations("classpath:db/migration");
    }

    private static void key(Connection c, UUID tenant, String role) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO api_keys (id, tenant_id, role, secret_hash) VALUES (?, ?, ?, ?)")) {
            UUID id = UUID.randomUUID();
            insert.setObject(1, id);
            insert.setObject(2, tenant);
            insert.setString(3, role);
            insert.setBytes(4, id.toString().getBytes());
            insert.executeUpdate();
        }
    }

    private static void execute(Connection c, String sql, UUID tenant) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setObject(1, tenant);
            statement.executeUpdate();
        }
    }

    private static List<String> roles(Connection c) throws SQLException {
        List<String> roles = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement("SELECT role FROM api_keys ORDER BY role"); ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
                roles.add(rs.getString(1));
            }
        }
        return roles;
    }
}

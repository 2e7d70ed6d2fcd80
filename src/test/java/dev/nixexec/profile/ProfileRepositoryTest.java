package dev.nixexec.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import dev.nixexec.testing.ServiceJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Tenant profiles on the real database: stored and read back whole, per tenant, each change with its audit record. */
@DatabaseTest
class ProfileRepositoryTest {

    private Connection connection;
    private ProfileRepository repository;
    private UUID tenant;
    private final UUID key = UUID.randomUUID();

    @BeforeEach
    void setUp(Database database) throws SQLException {
        connection = database.connection();
        repository = new ProfileRepository(database.dataSource(), ServiceJson.mapper());
        tenant = tenant();
    }

    private UUID tenant() throws SQLException {
        UUID id = UUID.randomUUID();
        try (PreparedStatement s = connection.prepareStatement("INSERT INTO tenants (id, name) VALUES (?, ?)")) {
            s.setObject(1, id);
            s.setString(2, "t-" + id);
            s.executeUpdate();
        }
        return id;
    }

    private static Profile profile(String name, Map<String, String> env) {
        return new Profile(name, "for reviews", new Spec(List.of("git", "jq"), env, true,
                Set.of(WritablePath.WORKSPACE, WritablePath.CACHE)), new ProfileLimits(Optional.of(Duration.ofSeconds(90))),
                false);
    }

    private List<String> audit() throws SQLException {
        List<String> records = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT kind, key_id, detail::text FROM audit_events WHERE tenant_id = ? ORDER BY id")) {
            s.setObject(1, tenant);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    assertEquals(key, r.getObject(2), "the record names the key that made the change");
                    records.add(r.getString(1) + " " + r.getString(3));
                }
            }
        }
        return records;
    }

    @Test
    void aProfileIsStoredWholeAndAudited() throws SQLException {
        assertTrue(repository.put(tenant, profile("review", Map.of("TOKEN", "s3cret")), key));
        assertEquals(Optional.of(profile("review", Map.of("TOKEN", "s3cret"))), repository.find(tenant, "review"));
        List<String> audit = audit();
        assertEquals(1, audit.size());
        assertTrue(audit.get(0).startsWith("profile_created "), audit.toString());
        assertTrue(audit.get(0).contains("\"env_names\": [\"TOKEN\"]"), audit.toString());
        assertTrue(audit.get(0).contains("\"timeout_ms\": 90000"), audit.toString());
        assertFalse(audit.get(0).contains("s3cret"), "as for a job, the record names variables, never their values");
    }

    @Test
    void aSecondPutReplacesTheProfile() throws SQLException {
        repository.put(tenant, profile("review", Map.of()), key);
        Profile replaced = new Profile("review", "", new Spec(List.of("ripgrep"), Map.of(), false, Set.of()),
                ProfileLimits.NONE, false);
        assertFalse(repository.put(tenant, replaced, key));
        assertEquals(List.of(replaced), repository.list(tenant));
        assertEquals(List.of("profile_created", "profile_replaced"),
                audit().stream().map(r -> r.substring(0, r.indexOf(' '))).toList());
    }

    @Test
    void aTenantSeesOnlyItsOwnProfiles() throws SQLException {
        UUID other = tenant();
        repository.put(tenant, profile("review", Map.of()), key);
        assertEquals(List.of(), repository.list(other));
        assertEquals(Optional.empty(), repository.find(other, "review"));
        // a node's environments built ahead name profiles for no tenant
        assertEquals(Optional.empty(), repository.find(null, "review"));
        assertFalse(repository.delete(other, "review", key), "another tenant's profile is not there to delete");
        assertEquals(1, repository.list(tenant).size());
    }

    @Test
    void deleteRemovesItWithARecordAndAnUnknownOneIsNotThere() throws SQLException {
        repository.put(tenant, profile("review", Map.of()), key);
        assertTrue(repository.delete(tenant, "review", key));
        assertEquals(List.of(), repository.list(tenant));
        assertFalse(repository.delete(tenant, "review", key));
        List<String> audit = audit();
        assertEquals("profile_deleted {\"name\": \"review\"}", audit.get(audit.size() - 1));
        assertEquals(2, audit.size(), "a delete of nothing leaves no record");
    }
}

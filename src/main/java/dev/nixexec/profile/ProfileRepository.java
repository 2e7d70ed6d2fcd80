package dev.nixexec.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Tenant profiles in {@code tenant_profiles}, on the current transaction's plain JDBC connection.
 * A change and its audit record ({@code audit_events}, as {@code AuditLog} reads them) are one
 * statement, so the record exists exactly when the change does.
 */
@ApplicationScoped
public class ProfileRepository {

    private static final String COLUMNS = "name, description, spec, limits";

    private static final String PUT = """
            WITH saved AS (
                INSERT INTO tenant_profiles (tenant_id, name, description, spec, limits)
                VALUES (?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb))
                ON CONFLICT (tenant_id, name) DO UPDATE SET description = EXCLUDED.description,
                    spec = EXCLUDED.spec, limits = EXCLUDED.limits, updated_at = now()
                RETURNING (xmax = 0) AS created)
            INSERT INTO audit_events (tenant_id, key_id, kind, detail)
            SELECT ?, ?, CASE WHEN created THEN 'profile_created' ELSE 'profile_replaced' END, CAST(? AS jsonb)
            FROM saved RETURNING kind""";

    private static final String DELETE = """
            WITH gone AS (DELETE FROM tenant_profiles WHERE tenant_id = ? AND name = ? RETURNING name)
            INSERT INTO audit_events (tenant_id, key_id, kind, detail)
            SELECT ?, ?, 'profile_deleted', jsonb_build_object('name', name) FROM gone RETURNING id""";

    private final DataSource dataSource;
    private final ObjectMapper json;

    @Inject
    public ProfileRepository(AgroalDataSource dataSource, ObjectMapper json) {
        this((DataSource) dataSource, json);
    }

    /** On any DataSource: a database test passes its own transaction's. */
    public ProfileRepository(DataSource dataSource, ObjectMapper json) {
        this.dataSource = dataSource;
        this.json = json;
    }

    /** The tenant's profiles by name. */
    public List<Profile> list(UUID tenantId) {
        return query("SELECT " + COLUMNS + " FROM tenant_profiles WHERE tenant_id = ? ORDER BY name", tenantId);
    }

    public Optional<Profile> find(UUID tenantId, String name) {
        return query("SELECT " + COLUMNS + " FROM tenant_profiles WHERE tenant_id = ? AND name = ?", tenantId, name)
                .stream().findFirst();
    }

    /** Defines or replaces the profile, audited as {@code keyId}'s; true when it is new. */
    public boolean put(UUID tenantId, Profile profile, UUID keyId) {
        Spec spec = profile.spec();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("name", profile.name());
        detail.put("packages", spec.packages());
        detail.put("network", spec.network());
        detail.put("writable", paths(spec.writable()));
        // as for a job, the names of the variables, not their values
        detail.put("env_names", new ArrayList<>(new TreeMap<>(spec.env()).keySet()));
        profile.limits().timeout().ifPresent(t -> detail.put("timeout_ms", t.toMillis()));
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(PUT)) {
            s.setObject(1, tenantId);
            s.setString(2, profile.name());
            s.setString(3, profile.description());
            s.setString(4, write(Map.of("packages", spec.packages(), "env", spec.env(), "network", spec.network(),
                    "writable", paths(spec.writable()))));
            s.setString(5, write(profile.limits().timeout().<Map<String, Object>>map(t -> Map.of("timeout_ms", t.toMillis()))
                    .orElse(Map.of())));
            s.setObject(6, tenantId);
            s.setObject(7, keyId);
            s.setString(8, write(detail));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getString(1).equals("profile_created");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store profile " + profile.name(), e);
        }
    }

    /** Deletes the profile, audited as {@code keyId}'s; false when there was none. */
    public boolean delete(UUID tenantId, String name, UUID keyId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(DELETE)) {
            s.setObject(1, tenantId);
            s.setString(2, name);
            s.setObject(3, tenantId);
            s.setObject(4, keyId);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot delete profile " + name, e);
        }
    }

    private List<Profile> query(String sql, Object... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            List<Profile> profiles = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    profiles.add(profile(r));
                }
            }
            return profiles;
        } catch (SQLException | JsonProcessingException e) {
            throw new IllegalStateException("cannot read profiles", e);
        }
    }

    private Profile profile(ResultSet r) throws SQLException, JsonProcessingException {
        JsonNode spec = json.readTree(r.getString("spec"));
        List<String> packages = new ArrayList<>();
        spec.path("packages").forEach(p -> packages.add(p.asText()));
        Map<String, String> env = new TreeMap<>();
        spec.path("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        Set<WritablePath> writable = EnumSet.noneOf(WritablePath.class);
        spec.path("writable").forEach(p -> WritablePath.of(p.asText()).ifPresent(writable::add));
        JsonNode limits = json.readTree(r.getString("limits"));
        Optional<Duration> timeout = limits.hasNonNull("timeout_ms")
                ? Optional.of(Duration.ofMillis(limits.get("timeout_ms").asLong())) : Optional.empty();
        return new Profile(r.getString("name"), r.getString("description"),
                new Spec(packages, env, spec.path("network").asBoolean(), writable), new ProfileLimits(timeout), false);
    }

    static List<String> paths(Set<WritablePath> writable) {
        return Arrays.stream(WritablePath.values()).filter(writable::contains).map(WritablePath::path).toList();
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

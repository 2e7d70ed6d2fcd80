package dev.nixexec.profile;

import static dev.nixexec.database.JsonColumns.write;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import jakarta.enterprise.context.ApplicationScoped;
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
 * Tenant profiles in {@code tenant_profiles}: the named statements of {@code profiles.sql} on the
 * current transaction's connection. A change and its audit record ({@code audit_events}, as
 * {@code AuditLog} reads them) are one statement, so the record exists exactly when the change does.
 */
@ApplicationScoped
public class ProfileRepository {

    private static final SqlFile SQL = SqlFile.of(ProfileRepository.class, "profiles.sql");

    private final DataSource dataSource;
    private final ObjectMapper json;

    /** On the service's DataSource, or a database test's own transaction's. */
    public ProfileRepository(DataSource dataSource, ObjectMapper json) {
        this.dataSource = dataSource;
        this.json = json;
    }

    /** The tenant's profiles by name. */
    public List<Profile> list(UUID tenantId) {
        return SQL.query(dataSource, "List", Map.of("tenant", tenantId), this::profile);
    }

    /** The tenant's profile; none for no tenant (a node building environments ahead asks for built-in ones only). */
    public Optional<Profile> find(UUID tenantId, String name) {
        return SQL.query(dataSource, "Find", NamedStatement.values().set("tenant", tenantId).set("name", name).map(),
                this::profile).stream().findFirst();
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
        return SQL.single(dataSource, "Put", NamedStatement.values().set("tenant", tenantId).set("name", profile.name())
                .set("description", profile.description())
                .set("spec", write(json, Map.of("packages", spec.packages(), "env", spec.env(), "network", spec.network(),
                        "writable", paths(spec.writable()))))
                .set("limits", write(json, profile.limits().timeout()
                        .<Map<String, Object>>map(t -> Map.of("timeout_ms", t.toMillis())).orElse(Map.of())))
                .set("key", keyId).set("detail", write(json, detail)).map(), r -> r.getString("kind"))
                .equals("profile_created");
    }

    /** Deletes the profile, audited as {@code keyId}'s; false when there was none. */
    public boolean delete(UUID tenantId, String name, UUID keyId) {
        return !SQL.query(dataSource, "Delete", NamedStatement.values().set("tenant", tenantId).set("name", name)
                .set("key", keyId).map(), r -> true).isEmpty();
    }

    private Profile profile(ResultSet r) throws SQLException {
        JsonNode spec = read(r.getString("spec"));
        List<String> packages = new ArrayList<>();
        spec.path("packages").forEach(p -> packages.add(p.asText()));
        Map<String, String> env = new TreeMap<>();
        spec.path("env").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        Set<WritablePath> writable = EnumSet.noneOf(WritablePath.class);
        spec.path("writable").forEach(p -> WritablePath.of(p.asText()).ifPresent(writable::add));
        JsonNode limits = read(r.getString("limits"));
        Optional<Duration> timeout = limits.hasNonNull("timeout_ms")
                ? Optional.of(Duration.ofMillis(limits.get("timeout_ms").asLong())) : Optional.empty();
        return new Profile(r.getString("name"), r.getString("description"),
                new Spec(packages, env, spec.path("network").asBoolean(), writable), new ProfileLimits(timeout), false);
    }

    private JsonNode read(String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot read profiles", e);
        }
    }

    static List<String> paths(Set<WritablePath> writable) {
        return Arrays.stream(WritablePath.values()).filter(writable::contains).map(WritablePath::path).toList();
    }
}

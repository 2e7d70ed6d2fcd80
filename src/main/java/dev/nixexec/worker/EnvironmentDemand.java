package dev.nixexec.worker;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.SqlFile;
import dev.nixexec.nix.MostUsedEnvironments;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/** How often recent jobs asked for each environment, from the jobs table (the SQL of the most-used upkeep). */
@ApplicationScoped
public class EnvironmentDemand {

    /** Distinct requests read at most: the decision needs the head of the list, not its tail. */
    static final int MAX_ROWS = 1000;
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };
    private static final SqlFile SQL = SqlFile.of(EnvironmentDemand.class, "environment-demand.sql");

    private final DataSource db;
    private final ObjectMapper json;

    /** On the service's DataSource, or a database test's own transaction's. */
    public EnvironmentDemand(DataSource db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /** Jobs submitted within {@code window}, counted by language, package list and network, most first. */
    public List<MostUsedEnvironments.Demand> recent(Duration window) {
        return SQL.query(db, "Recent", Map.of("window", (double) window.toSeconds(), "limit", MAX_ROWS), rows -> {
            try {
                return new MostUsedEnvironments.Demand(rows.getString("language"),
                        json.readValue(rows.getString("packages"), NAMES), rows.getBoolean("network"),
                        rows.getLong("jobs"));
            } catch (IOException e) {
                return null; // not a list of names: no environment the decision could keep
            }
        }).stream().filter(Objects::nonNull).toList();
    }
}

package dev.nixexec.worker;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.nix.MostUsedEnvironments;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** How often recent jobs asked for each environment, from the jobs table (the SQL of the most-used upkeep). */
@ApplicationScoped
public class EnvironmentDemand {

    /** Distinct requests read at most: the decision needs the head of the list, not its tail. */
    static final int MAX_ROWS = 1000;
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };

    private final DataSource db;
    private final ObjectMapper json;

    @Inject
    public EnvironmentDemand(AgroalDataSource db, ObjectMapper json) {
        this((DataSource) db, json);
    }

    EnvironmentDemand(DataSource db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /** Jobs submitted within {@code window}, counted by language, package list and network, most first. */
    public List<MostUsedEnvironments.Demand> recent(Duration window) throws SQLException {
        List<MostUsedEnvironments.Demand> demand = new ArrayList<>();
        try (Connection c = db.getConnection();
                PreparedStatement select = c.prepareStatement("SELECT language, packages::text AS packages, network, "
                        + "count(*) AS jobs FROM jobs WHERE created_at > now() - make_interval(secs => ?) "
                        + "GROUP BY language, packages, network ORDER BY jobs DESC LIMIT ?")) {
            select.setDouble(1, window.toSeconds());
            select.setInt(2, MAX_ROWS);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    List<String> packages;
                    try {
                        packages = json.readValue(rows.getString("packages"), NAMES);
                    } catch (IOException e) {
                        continue; // not a list of names: no environment the decision could keep
                    }
                    demand.add(new MostUsedEnvironments.Demand(rows.getString("language"), packages,
                            rows.getBoolean("network"), rows.getLong("jobs")));
                }
            }
        }
        return demand;
    }
}

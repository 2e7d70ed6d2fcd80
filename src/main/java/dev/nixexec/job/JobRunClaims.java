package dev.nixexec.job;

import dev.nixexec.workspace.RunClaims;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/** The jobs table's side of a workspace store-back, in the caller's transaction. */
@ApplicationScoped
public class JobRunClaims implements RunClaims {

    private final DataSource db;

    public JobRunClaims(AgroalDataSource db) {
        this.db = db;
    }

    /** Whether the run still holds the job; it is then key-share locked to the end of the transaction. */
    @Override
    public boolean holdIfStillClaimed(UUID jobId, String nodeId, int attempt) {
        Map<String, Object> values = Map.of("job", jobId, "node", nodeId, "attempt", attempt);
        return !QueueSql.query(db, "HoldIfStillClaimed", values, rs -> rs.getObject("id")).isEmpty();
    }

    @Override
    public void showArtifacts(UUID jobId, String artifactsJson) {
        QueueSql.update(db, "ShowArtifacts", Map.of("job", jobId, "artifacts", artifactsJson));
    }
}

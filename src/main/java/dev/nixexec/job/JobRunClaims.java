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

    private static final NamedStatement HOLD_IF_STILL_CLAIMED = QueueSql.STATEMENTS.get("HoldIfStillClaimed");
    private static final NamedStatement SHOW_ARTIFACTS = QueueSql.STATEMENTS.get("ShowArtifacts");

    private final DataSource db;

    public JobRunClaims(AgroalDataSource db) {
        this.db = db;
    }

    /** Whether the run still holds the job; it is then key-share locked to the end of the transaction. */
    @Override
    public boolean holdIfStillClaimed(UUID jobId, String nodeId, int attempt) {
        Map<String, Object> values = Map.of("job", jobId, "node", nodeId, "attempt", attempt);
        return !QueueSql.run(db, c -> HOLD_IF_STILL_CLAIMED.with(values).query(c, rs -> rs.getObject("id"))).isEmpty();
    }

    @Override
    public void showArtifacts(UUID jobId, String artifactsJson) {
        QueueSql.run(db, c -> SHOW_ARTIFACTS.with(Map.of("job", jobId, "artifacts", artifactsJson)).update(c));
    }
}

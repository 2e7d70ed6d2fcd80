package dev.nixexec.job;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.JsonColumns;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A running job's output as it comes, for live followers on any node. Like claims, it commits
 * without waiting for the disk: nothing runs before {@link JobTransitions#start}'s synchronous
 * commit, and the result stores the output again.
 */
@ApplicationScoped
public class LiveOutput {

    private final DataSource db;
    private final ObjectMapper json;

    public LiveOutput(AgroalDataSource db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /**
     * Appends output for live followers: several chunks, one statement, one notification; only
     * while the job is this node's run of that attempt ({@code AppendOutput} in jobs.sql).
     */
    @Transactional
    public void output(UUID id, String nodeId, int attempt, List<JobTransitions.Chunk> chunks) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (JobTransitions.Chunk chunk : chunks) {
            rows.add(Map.of("n", rows.size() + 1, "kind", chunk.stream(), "data", chunk.text()));
        }
        Map<String, Object> values = Map.of("id", id, "node", nodeId, "attempt", attempt,
                "chunks", JsonColumns.write(json, rows), "changed_channel", JobNotifications.CHANGED);
        QueueSql.single(db, "AppendOutput", values, rs -> rs.getLong("appended"));
    }
}

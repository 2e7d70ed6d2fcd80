package dev.nixexec.job;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/** A job's ordered event stream in {@code job_events}: what live followers on any node read. */
public final class JobEvents {

    /**
     * The last event of every job. It is stored empty, so ending a job does not have to render it
     * first: readers get the job as it is then ({@link JobWaits}), which a finished job no longer
     * changes from.
     */
    static final String RESULT = "result";

    /** {@code kind} is status, stdout, stderr or result; {@code seq} is the SSE id; {@code at} when it was stored. */
    public record Event(int seq, String kind, String data, Instant at) {
    }

    /** The most events one read returns; a reader that got this many reads again at once. */
    static final int PAGE = 1000;

    private JobEvents() {
    }

    /** The sequence number of the job's {@code result} event, once it ended; none for another tenant's job. */
    static Optional<Integer> resultSeq(DataSource db, UUID tenantId, UUID jobId) {
        return QueueSql.query(db, "ResultSeq", Map.of("job", jobId, "tenant", tenantId), rs -> rs.getInt("seq")).stream()
                .findFirst();
    }

    /** The job's events after {@code afterSeq}, at most {@link #PAGE}; none for another tenant's job. */
    static List<Event> after(DataSource db, UUID tenantId, UUID jobId, int afterSeq) {
        Map<String, Object> values = Map.of("job", jobId, "tenant", tenantId, "after", afterSeq, "page", PAGE);
        return QueueSql.query(db, "EventsAfter", values, rs -> new Event(rs.getInt("seq"), rs.getString("kind"),
                rs.getString("data"), rs.getObject("created_at", OffsetDateTime.class).toInstant()));
    }
}

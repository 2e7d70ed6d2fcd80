package dev.nixexec.job;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.OffsetDateTime;
import java.util.UUID;

/** One entry of a job's event stream: a status change, an output chunk, or the final result. */
@Entity
@Table(name = "job_events")
@IdClass(JobEvent.Key.class)
public class JobEvent extends PanacheEntityBase {

    /** Composite key: job and sequence number. */
    public static class Key implements Serializable {
        public UUID jobId;
        public int seq;

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && java.util.Objects.equals(jobId, key.jobId) && seq == key.seq;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(jobId, seq);
        }
    }

    @Id
    @Column(name = "job_id")
    public UUID jobId;
    @Id
    public int seq;
    public String kind;
    public String data;
    @Column(name = "created_at")
    public OffsetDateTime createdAt;
}

package dev.nixexec.audit;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** One append-only audit record. */
@Entity
@Table(name = "audit_events")
public class AuditEvent extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "tenant_id")
    public UUID tenantId;

    @Column(name = "job_id")
    public UUID jobId;

    @Column(name = "key_id")
    public UUID keyId;

    @Column(name = "node_id")
    public String nodeId;

    public String kind;

    @JdbcTypeCode(SqlTypes.JSON)
    public String detail;

    public OffsetDateTime at;
}

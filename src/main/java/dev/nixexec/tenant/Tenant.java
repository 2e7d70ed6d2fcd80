package dev.nixexec.tenant;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

@Entity
@Table(name = "tenants")
public class Tenant extends PanacheEntityBase {

    @Id
    public UUID id;

    public String name;

    /** {@link TenantPolicy} as JSON. */
    @JdbcTypeCode(SqlTypes.JSON)
    public String policy;

    /** {@link TenantPolicy} as JSON: what an operator granted, the widest {@code policy} the tenant's admin may set. */
    @JdbcTypeCode(SqlTypes.JSON)
    public String granted;

    @Column(name = "created_at")
    public OffsetDateTime createdAt;
}

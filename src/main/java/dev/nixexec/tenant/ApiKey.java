package dev.nixexec.tenant;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;

@Entity
@Table(name = "api_keys")
public class ApiKey extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "tenant_id")
    public UUID tenantId;

    public String role;

    @Column(name = "secret_hash")
    public byte[] secretHash;

    @Column(name = "created_at")
    public OffsetDateTime createdAt;

    @Column(name = "revoked_at")
    public OffsetDateTime revokedAt;
}

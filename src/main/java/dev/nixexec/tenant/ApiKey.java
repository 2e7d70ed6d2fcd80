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

    /** What the key is for, as its maker named it; optional. */
    public String name;

    @Column(name = "secret_hash")
    public byte[] secretHash;

    @Column(name = "created_at")
    public OffsetDateTime createdAt;

    @Column(name = "revoked_at")
    public OffsetDateTime revokedAt;

    /** After this the key is refused as an unknown one; null: never. */
    @Column(name = "expires_at")
    public OffsetDateTime expiresAt;

    /** Written by {@link KeyUses}, at most a minute late. */
    @Column(name = "last_used_at")
    public OffsetDateTime lastUsedAt;
}

package dev.nixexec.workspace;

import jakarta.persistence.EntityManager;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Content-addressed file contents of one tenant, in PostgreSQL, shared by workspaces and artifacts. */
final class Blobs {

    /** Not referred to by a workspace file or an artifact, and not touched by a write for an hour. */
    private static final String UNREFERENCED_AND_IDLE = "b.created_at < now() - interval '1 hour' "
            + "AND NOT EXISTS (SELECT 1 FROM workspace_files f WHERE f.tenant_id = b.tenant_id AND f.sha256 = b.sha256) "
            + "AND NOT EXISTS (SELECT 1 FROM job_artifacts a WHERE a.tenant_id = b.tenant_id AND a.sha256 = b.sha256)";

    private Blobs() {
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stores the content unless the tenant has it already. A content it has is touched: that locks
     * the row against a concurrent {@link #collect} and restarts its grace period, so a write that
     * has not committed yet never finds its content collected.
     */
    static void put(EntityManager em, UUID tenant, String sha, byte[] content) {
        em.createNativeQuery("INSERT INTO workspace_blobs (tenant_id, sha256, size, content) VALUES (?1, ?2, ?3, ?4) "
                        + "ON CONFLICT (tenant_id, sha256) DO UPDATE SET created_at = now()")
                .setParameter(1, tenant).setParameter(2, sha).setParameter(3, (long) content.length)
                .setParameter(4, content).executeUpdate();
    }

    static Optional<byte[]> get(EntityManager em, UUID tenant, String sha) {
        @SuppressWarnings("unchecked")
        List<byte[]> rows = em.createNativeQuery("SELECT content FROM workspace_blobs WHERE tenant_id = ?1 AND sha256 = ?2")
                .setParameter(1, tenant).setParameter(2, sha).getResultList();
        return rows.stream().findFirst();
    }

    /**
     * Deletes the tenant's contents no workspace file and no artifact refers to any more and that
     * no write touched in the last hour (one may be about to refer to it).
     */
    static int collect(EntityManager em, UUID tenant) {
        return em.createNativeQuery("DELETE FROM workspace_blobs b WHERE b.tenant_id = ?1 AND " + UNREFERENCED_AND_IDLE)
                .setParameter(1, tenant).executeUpdate();
    }

    /** {@link #collect} for every tenant. */
    static int collectAll(EntityManager em) {
        return em.createNativeQuery("DELETE FROM workspace_blobs b WHERE " + UNREFERENCED_AND_IDLE).executeUpdate();
    }

}

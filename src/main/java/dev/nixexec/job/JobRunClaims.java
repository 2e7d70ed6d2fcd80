package dev.nixexec.job;

import dev.nixexec.workspace.RunClaims;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.util.UUID;

/** The jobs table's side of a workspace store-back, in the caller's transaction. */
@ApplicationScoped
public class JobRunClaims implements RunClaims {

    private final EntityManager em;

    public JobRunClaims(EntityManager em) {
        this.em = em;
    }

    /**
     * The row is key-share locked to the end of the transaction: the reaper (FOR UPDATE SKIP LOCKED)
     * passes it by meanwhile, while the heartbeat's lease updates are not held up. "building"
     * counts too, in case the start of the run is written after its end is near; a reaped
     * building job has no node or another attempt.
     */
    @Override
    public boolean holdIfStillClaimed(UUID jobId, String nodeId, int attempt) {
        return !em.createNativeQuery("""
                SELECT id FROM jobs
                 WHERE id = :job AND node_id = :node AND attempt = :attempt AND status IN ('building', 'running')
                   FOR KEY SHARE
                """).setParameter("job", jobId).setParameter("node", nodeId).setParameter("attempt", attempt)
                .getResultList().isEmpty();
    }

    @Override
    public void showArtifacts(UUID jobId, String artifactsJson) {
        em.createNativeQuery("UPDATE jobs SET artifacts = CAST(:artifacts AS jsonb) WHERE id = :job")
                .setParameter("job", jobId).setParameter("artifacts", artifactsJson).executeUpdate();
    }
}

package dev.nixexec.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.database.SqlFile;
import dev.nixexec.job.CallbackUrl;
import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobViews;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.tenant.WebhookSecrets;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * Delivers job callbacks: any node finds the {@code job_callbacks} rows whose job has ended and
 * whose next attempt is due, claims them in one statement ({@code FOR UPDATE SKIP LOCKED}, so one
 * node takes each, and a lease past the attempt's timeout, so a node that dies mid-attempt leaves it
 * to another), POSTs the job JSON signed ({@link WebhookSignature}) to the address
 * {@link CallbackAddresses} allows, and records the attempt: its audit record and the next
 * attempt or the end, in one transaction. Rows are written with the job at submission, so a
 * callback outlives restarts. Attempts run independently of each other and of the poll, within
 * the node's and each receiving host's places ({@link DeliverySlots}): a receiver that stalls holds
 * only its own places, each until its attempt's deadline.
 */
@ApplicationScoped
public class CallbackDeliveries {

    private static final Logger LOG = Logger.getLogger(CallbackDeliveries.class);
    private static final int BATCH = 32;
    private static final SqlFile SQL = SqlFile.of(CallbackDeliveries.class, "webhooks.sql");
    /** The audit kind of every attempt. */
    public static final String AUDIT_KIND = AuditLog.WEBHOOK_DELIVERY;

    private final NixExecConfig config;
    private final DataSource db;
    private final JobViews views;
    private final JobReads reads;
    private final ObjectMapper json;
    private final Tenants tenants;
    private final WebhookSecrets secrets;
    private final AuditLog audit;
    private final DeliverySlots slots;
    private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();

    public CallbackDeliveries(NixExecConfig config, AgroalDataSource db, JobViews views, JobReads reads,
            ObjectMapper json, Tenants tenants, WebhookSecrets secrets, AuditLog audit) {
        this.config = config;
        this.db = db;
        this.views = views;
        this.reads = reads;
        this.json = json;
        this.tenants = tenants;
        this.secrets = secrets;
        this.audit = audit;
        this.slots = new DeliverySlots(config.webhooks().concurrency(), config.webhooks().concurrencyPerHost());
    }

    /**
     * A claimed delivery: its {@code attempt} is this one's number, from 1; {@code host} the URL's
     * host in lower case, as {@code ClaimedHost} in {@code webhooks.sql} reads it.
     */
    record Due(UUID jobId, UUID tenantId, String url, int attempt, String host) {
    }

    /** What one attempt came to. */
    sealed interface Attempt permits Answered, Broke, Refused {
    }

    /** The receiver answered; only a 2xx ends the delivery. */
    record Answered(String address, int status) implements Attempt {
    }

    /** No answer: connection, TLS, timeout, DNS. */
    record Broke(String exception) implements Attempt {
    }

    /** Not sent: the SSRF rules or a missing secret; never retried. */
    record Refused(String reason) implements Attempt {
    }

    /**
     * Claims what the node has places for and starts each attempt on its own; returns without
     * waiting for them, so the next poll is not held up by a slow receiver.
     */
    @Scheduled(every = "${nixexec.webhooks.poll:1s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void deliverDue() {
        int free = slots.free();
        if (free <= 0) {
            return;
        }
        Set<String> fullHosts = slots.fullHosts();
        List<Due> due = QuarkusTransaction.requiringNew().call(() -> claim(Math.min(free, BATCH), fullHosts));
        List<UUID> putBack = new ArrayList<>();
        for (Due d : due) {
            if (!slots.take(d.host())) {
                // one claim held more for a host than it has places: the rest is claimed again once one frees
                putBack.add(d.jobId());
                continue;
            }
            attempts.execute(() -> {
                try {
                    deliver(d);
                } finally {
                    slots.release(d.host());
                }
            });
        }
        if (!putBack.isEmpty()) {
            // their claim undone: due again at once, their attempt not counted
            QuarkusTransaction.requiringNew().run(() -> SQL.update(db, "PutBack", Map.of("job_ids",
                    String.join(" ", putBack.stream().map(UUID::toString).toList()))));
        }
    }

    @PreDestroy
    void stop() {
        // an attempt cut short is leased: another node, or this one after a restart, makes it again
        attempts.shutdownNow();
    }

    private List<Due> claim(int limit, Set<String> fullHosts) {
        double leaseSeconds = config.webhooks().attemptTimeout().multipliedBy(2).toMillis() / 1000.0;
        return SQL.query(db, "Claim", Map.of("lease_seconds", leaseSeconds, "limit", limit,
                "full_hosts", String.join(" ", fullHosts)), rs -> new Due(rs.getObject("job_id", UUID.class),
                rs.getObject("tenant_id", UUID.class), rs.getString("url"), rs.getInt("attempts"), rs.getString("host")));
    }

    private void deliver(Due due) {
        CallbackUrl url = CallbackUrl.parse(due.url());
        Attempt attempt;
        try {
            attempt = attempt(due, url);
        } catch (IOException | RuntimeException e) {
            attempt = new Broke(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        Attempt done = attempt;
        try {
            QuarkusTransaction.requiringNew().run(() -> record(due, url, done));
        } catch (RuntimeException e) {
            // the lease runs out and another attempt follows
            LOG.warnf(e, "could not record callback attempt %d of job %s", due.attempt(), due.jobId());
        }
    }

    private Attempt attempt(Due due, CallbackUrl url) throws IOException {
        Optional<Prepared> prepared = QuarkusTransaction.requiringNew().call(() -> prepare(due));
        if (prepared.isEmpty()) {
            return new Refused("the tenant has no webhook secret");
        }
        return switch (CallbackAddresses.resolve(url, prepared.get().policy().webhooks())) {
            case CallbackAddresses.Refused refused -> new Refused(refused.reason());
            case CallbackAddresses.Reachable reachable -> new Answered(reachable.address().getHostAddress(),
                    CallbackPost.send(url, reachable.address(), prepared.get().body(),
                            Map.of(WebhookSignature.HEADER, WebhookSignature.of(prepared.get().secret(), prepared.get().body()),
                                    "X-NixExec-Job", due.jobId().toString(),
                                    "X-NixExec-Attempt", Integer.toString(due.attempt())),
                            config.webhooks().attemptTimeout()));
        };
    }

    /** The body (the job JSON as {@code GET /v1/jobs/{id}} answers), the key and the policy of now. */
    private record Prepared(byte[] body, byte[] secret, TenantPolicy policy) {
    }

    private Optional<Prepared> prepare(Due due) {
        Optional<byte[]> secret = secrets.secret(due.tenantId());
        if (secret.isEmpty()) {
            return Optional.empty();
        }
        try {
            byte[] body = json.writeValueAsBytes(views.view(reads.find(due.jobId()).orElseThrow()));
            return Optional.of(new Prepared(body, secret.get(), tenants.policy(due.tenantId())));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void record(Due due, CallbackUrl url, Attempt attempt) {
        List<Duration> delays = config.webhooks().retryDelays();
        String outcome = switch (attempt) {
            case Answered a when a.status() >= 200 && a.status() < 300 -> "delivered";
            case Refused r -> "refused";
            default -> due.attempt() > delays.size() ? "failed" : "retry";
        };
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("host", url.host());
        detail.put("port", url.port());
        detail.put("attempt", due.attempt());
        switch (attempt) {
            case Answered a -> {
                detail.put("address", a.address());
                detail.put("status", a.status());
            }
            case Broke b -> detail.put("exception", b.exception());
            case Refused r -> detail.put("refused", r.reason());
        }
        detail.put("outcome", outcome);
        if (outcome.equals("retry")) {
            SQL.update(db, "Retry", Map.of("job", due.jobId(),
                    "delay_seconds", delays.get(due.attempt() - 1).toMillis() / 1000.0));
        } else {
            SQL.update(db, "Finish", Map.of("job", due.jobId(), "outcome", outcome));
        }
        audit.record(AUDIT_KIND, due.tenantId(), due.jobId(), null, null, detail);
    }
}

package dev.nixexec.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.tenant.WebhookSecrets;
import dev.nixexec.workspace.JobFiles;
import dev.nixexec.workspace.JobInputs;
import io.agroal.api.AgroalDataSource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Intake and cancel: a submission checked ({@link SubmissionCheck}), deduplicated by its
 * idempotency key, stored (or handed straight to a free local slot), and a job cancelled. Reads
 * are {@link JobReads}', waits {@link JobWaits}'.
 */
@ApplicationScoped
public class JobService {

    /** A submitted (or, for a repeated idempotency key, the earlier) job, and whether it is new. */
    public record Submitted(JobView job, boolean created) {
    }

    private final NixExecConfig config;
    private final DataSource db;
    private final QueuedCounts queuedCounts;
    private volatile boolean stopping;
    private final SubmissionCheck check;
    private final Tenants tenants;
    private final JobNotifications notifications;
    private final ObjectMapper canonical;
    private final JobViews views;
    private final JobReads reads;
    private final JobMetrics metrics;
    private final JobInputs inputs;
    private final LocalSlots localSlots;
    private final JobTransitions transitions;
    private final WebhookSecrets webhookSecrets;
    private final IntakeCommits intake;

    public JobService(NixExecConfig config, SubmissionCheck check, Tenants tenants,
            JobNotifications notifications, ObjectMapper json, JobViews views, JobReads reads,
            JobMetrics metrics, JobInputs inputs, LocalSlots localSlots, JobTransitions transitions,
            WebhookSecrets webhookSecrets, IntakeCommits intake, QueuedCounts queuedCounts, AgroalDataSource db) {
        this.config = config;
        this.db = db;
        this.queuedCounts = queuedCounts;
        this.intake = intake;
        this.webhookSecrets = webhookSecrets;
        this.transitions = transitions;
        this.check = check;
        this.localSlots = localSlots;
        this.inputs = inputs;
        this.metrics = metrics;
        this.tenants = tenants;
        this.notifications = notifications;
        this.views = views;
        this.reads = reads;
        this.canonical = json.copy().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    }

    /** From the first moment of shutdown, new jobs are refused (503) rather than left to a stopping node. */
    void stopping(@jakarta.enterprise.event.Observes @jakarta.annotation.Priority(0) io.quarkus.runtime.ShutdownEvent event) {
        stopping = true;
    }

    /**
     * The refusal of a submission whose adapter already found {@code found} in its wire form (a field
     * of the wrong type, a malformed duration), with every problem intake finds in what could be read:
     * a caller learns them all at once. A problem about a field already named is left out ({@code code}
     * of the wrong type is not also empty).
     */
    public InvalidRequestException refusal(List<FieldError> found, Submission rest) {
        List<FieldError> all = new ArrayList<>(found);
        java.util.Set<String> named = new java.util.HashSet<>();
        found.forEach(problem -> named.add(topLevel(problem.field())));
        try {
            check.check(rest, (String) null);
        } catch (InvalidRequestException more) {
            more.errors().stream().filter(problem -> !named.contains(topLevel(problem.field()))).forEach(all::add);
        }
        return new InvalidRequestException(all, false);
    }

    private static String topLevel(String field) {
        return field.split("[.\\[]", 2)[0];
    }

    public Submitted submit(Caller caller, Submission submission, String idempotencyKey) {
        return submit(caller, submission, idempotencyKey, UUID.randomUUID());
    }

    /**
     * Submits as a job with the id the caller chose, so that it can watch the job before it
     * exists; an earlier job of the idempotency key is returned as it is.
     */
    public Submitted submit(Caller caller, Submission submission, String idempotencyKey, UUID id) {
        if (stopping) {
            throw new Refusal(Refusal.Kind.UNAVAILABLE, "the service is shutting down; submit again shortly");
        }
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot submit jobs");
        }
        check.check(submission, idempotencyKey);
        // only an idempotency key's later use compares it; a job without one is never looked up by it
        String hash = idempotencyKey == null ? null : requestHash(submission);
        try (LocalStart local = localStart(caller, submission, id)) {
            // with the submissions that arrive with it, in one transaction (group commit)
            Stored stored = intake.store(wrote -> insert(id, caller, submission, idempotencyKey, hash, local, wrote));
            local.stored(stored.claimedHere());
            Submitted submitted = stored.submitted();
            if (submitted.created()) {
                metrics.submitted(submitted.job().language(), caller.tenantId());
                if (stored.claimedHere().isEmpty()) {
                    notifications.submittedHere();
                }
            }
            return submitted;
        } catch (Refusal | InvalidRequestException e) {
            throw e;
        } catch (RuntimeException e) {
            // two submissions with one idempotency key raced: the loser returns the winner's job
            if (idempotencyKey != null && causedBy(e, PersistenceException.class)) {
                return QuarkusTransaction.requiringNew().call(() -> existing(caller, idempotencyKey, hash)
                        .orElseThrow(() -> e));
            }
            throw e;
        }
    }

    /**
     * A free slot of this node for the submission, if any; a job that may start early (no files or
     * session, whose run reads what the submission stores) starts its run there now.
     */
    private LocalStart localStart(Caller caller, Submission submission, UUID id) {
        LocalStart local = new LocalStart(localSlots.take());
        try {
            if (local.hasSlot() && submission.files().isEmpty() && submission.session().isEmpty()) {
                TenantPolicy policy = tenants.policy(caller.tenantId());
                if (local.startEarly(claimed(id, caller, submission, policy), policy)) {
                    metrics.startedEarly();
                }
            }
            return local;
        } catch (RuntimeException e) {
            local.close();
            throw e;
        }
    }

    /** A submission as stored, and the job as claimed by this node when it went straight to a local slot. */
    private record Stored(Submitted submitted, Optional<ClaimedJob> claimedHere) {
    }

    /**
     * The job's row as a submission stores it, created at {@code createdAt}: queued, or as the
     * hand-off's statement stored it, claimed by node {@code claimedBy}.
     */
    private Job row(UUID id, Caller caller, Submission s, String idempotencyKey, String hash, OffsetDateTime createdAt,
            Optional<String> claimedBy) {
        ExecutionRequest run = s.run();
        ExecutionRequest stored = run.withLanguage(run.language().toLowerCase(java.util.Locale.ROOT))
                .withTimeout(run.timeout().orElse(config.sandbox().timeout()));
        return Job.submitted(id, caller.tenantId(), caller.keyId(), caller.keyName(),
                caller.keyId() == null ? null : caller.role().id(), s.withRun(stored), idempotencyKey, hash,
                config.jobs().maxAttempts(), createdAt, claimedBy.orElse(null));
    }

    /** The nixpkgs revision the submission's job must run on: its original's, for a rerun. */
    private static Optional<String> requiredRevision(Submission s) {
        return s.rerunOf().flatMap(Submission.RerunOf::nixpkgsRevision);
    }

    /** The job {@code id} as this node runs it once claimed in its submission (attempt 1), under {@code policy}. */
    private static ClaimedJob claimed(UUID id, Caller caller, Submission s, TenantPolicy policy) {
        return new ClaimedJob(id, caller.tenantId(), 1, policy, s, !s.files().isEmpty(), requiredRevision(s));
    }

    /** In the transaction of {@code intake}'s batch; {@code wrote} is told once the job is written. */
    private Stored insert(UUID id, Caller caller, Submission s, String idempotencyKey, String hash, LocalStart local,
            Runnable wrote) {
        TenantPolicy policy = tenants.policy(caller.tenantId());
        check.check(s, policy); // the tenant's half of the checks, in the insert's transaction
        if (s.callbackUrl().isPresent() && !webhookSecrets.present(caller.tenantId())) {
            throw new InvalidRequestException(List.of(new FieldError("callback_url", "the tenant has no webhook secret "
                    + "(an admin makes one: POST /v1/admin/tenants/" + caller.tenantId() + "/webhook-secret)")), false);
        }
        if (idempotencyKey != null) {
            Optional<Submitted> earlier = existing(caller, idempotencyKey, hash);
            if (earlier.isPresent()) {
                return new Stored(earlier.get(), Optional.empty());
            }
        }
        long allQueued = queuedCounts.estimateOfAllTenants(config.jobs().maxQueued());
        if (allQueued >= config.jobs().maxQueued()) {
            throw new Refusal(Refusal.Kind.UNAVAILABLE, "the queue is full (" + allQueued + " jobs waiting); submit again later");
        }
        int maxQueued = Optional.ofNullable(policy.maxQueued()).orElse(config.jobs().maxQueuedPerTenant());
        Job job = row(id, caller, s, idempotencyKey, hash, JobTransitions.storedNow(), Optional.empty());
        String submitted = views.write(Map.of("language", job.language(), "packages", s.run().packages(),
                "env_names", new ArrayList<>(new TreeMap<>(s.run().env()).keySet())));
        // One statement (Insert in jobs.sql): the tenant's cap, the job, its events, audit and
        // wake-up; given this node's free slot, stored as claimed by it when the claim rule would
        // give it that slot now.
        JobTransitions.Inserted inserted = transitions.insert(job, maxQueued, submitted, local.node(policy));
        if (!inserted.stored()) {
            throw new Refusal(Refusal.Kind.TOO_MANY, "the tenant has " + inserted.queuedBefore()
                    + " queued jobs, its cap is " + maxQueued);
        }
        wrote.run();
        inputs.attach(caller, id, s.files());
        // the job's callback, due once the job ends: registered in the submission's transaction, so never lost
        s.callbackUrl().ifPresent(url -> QueueSql.update(db, "RegisterCallback", Map.of("job", id, "tenant",
                caller.tenantId(), "url", url)));
        if (inserted.claimedBy().isEmpty()) {
            return new Stored(new Submitted(views.view(job), true), Optional.empty());
        }
        Job claimed = row(id, caller, s, idempotencyKey, hash, job.createdAt(), inserted.claimedBy());
        return new Stored(new Submitted(views.view(claimed), true), Optional.of(claimed(id, caller, s, policy)));
    }

    private Optional<Submitted> existing(Caller caller, String idempotencyKey, String hash) {
        Map<String, Object> values = Map.of("tenant", caller.tenantId(), "idempotency_key", idempotencyKey);
        return QueueSql.query(db, "JobByIdempotencyKey", values, rs -> JobRows.job(rs, views.json())).stream().findFirst()
                .map(job -> {
                    if (!hash.equals(job.requestHash())) {
                        throw new Refusal(Refusal.Kind.CONFLICT,
                                "Idempotency-Key '" + idempotencyKey + "' was used for a different request");
                    }
                    return new Submitted(views.view(job), false);
                });
    }

    /**
     * Submits the caller's job {@code id} again as a new job: the same request (language, code,
     * packages, env, stdin, timeout, network, metadata, files, args, encoding; no idempotency key),
     * to run on the nixpkgs revision the original ran on (any, when it never got an environment).
     * The new job is checked as any submission is, against the tenant's policy of now. A job with
     * env values is rerun only by the key that submitted it or one that may read them (403 otherwise).
     */
    public Submitted rerun(Caller caller, UUID id) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot submit jobs");
        }
        Submission again = QuarkusTransaction.requiringNew().call(() -> {
            Job original = reads.owned(caller, id);
            if (original.request().session().isPresent()) {
                throw new Refusal(Refusal.Kind.CONFLICT, "job " + id + " ran in session " + original.request().session().get()
                        + "; run the command again there (POST /v1/sessions/{id}/exec)");
            }
            Submission asked = original.request();
            // the rerun would run with those values, and its code may print them where the caller reads;
            // the key that submitted the job sent them itself
            if (!asked.run().env().isEmpty() && !caller.role().seesEnvValues()
                    && !Objects.equals(caller.keyId(), original.keyId())) {
                throw new Refusal(Refusal.Kind.FORBIDDEN, "job " + id + " was submitted by another key with env "
                        + "values, which a " + caller.role().id() + " key may not read, so it may not rerun the job "
                        + "either; submit it again with env values of its own");
            }
            return new Submission(asked.run(), asked.encoding(), asked.metadata(), asked.hostWorkspace(),
                    asked.hostMounts(), inputs.submitted(original.id()).orElse(JobFiles.NONE), Optional.empty(),
                    Optional.empty(), Optional.of(new Submission.RerunOf(original.id(),
                            Optional.ofNullable(original.nixpkgsRevision()))));
        });
        return submit(caller, again, null);
    }

    /**
     * Cancels: a queued job ends at once; a building or running one is flagged and its node told,
     * and ends {@code cancelled} when its sandbox is gone. A terminal job is left as it is.
     */
    @Transactional
    public JobView cancel(Caller caller, UUID id) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot cancel jobs");
        }
        // One statement (Cancel in jobs.sql) with its events, audit and notifications; then the
        // job as it is (another tenant's, or none: not found).
        transitions.cancel(caller.tenantId(), id, caller.keyId());
        return views.view(reads.owned(caller, id));
    }

    /**
     * What an Idempotency-Key is held to: the request's fields, those of its run by their JSON names.
     * A field added since the first seven is hashed only when set, so a key stored before it keeps
     * its hash, and a new field of the run is hashed with no change here.
     */
    private String requestHash(Submission s) {
        try {
            Map<String, Object> fields = new TreeMap<>();
            canonical.<ObjectNode>valueToTree(s.run()).properties().forEach(field -> {
                if (HASHED_ALWAYS.contains(field.getKey()) || !unset(field.getValue())) {
                    fields.put(field.getKey(), field.getValue());
                }
            });
            // the timeout as asked, in milliseconds, as before the run was hashed by its JSON names
            fields.remove("timeout");
            fields.put("timeout_ms", s.run().timeout().map(Duration::toMillis).orElse(null));
            fields.put("host_workspace", s.hostWorkspace().map(Path::toString).orElse(null));
            fields.put("metadata", s.metadata());
            if (!s.files().isEmpty()) {
                fields.put("files", s.files());
            }
            s.session().ifPresent(session -> fields.put("session", session));
            s.callbackUrl().ifPresent(url -> fields.put("callback_url", url));
            if (s.encoding() != OutputEncoding.UTF_8) {
                fields.put("encoding", s.encoding().id());
            }
            s.rerunOf().ifPresent(rerun -> fields.put("rerun_of", rerun.job()));
            if (!s.hostMounts().isEmpty()) {
                fields.put("host_mounts", s.hostMounts().stream().map(m -> (m.writable() ? "rw " : "ro ") + m.path()).toList());
            }
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.writeValueAsBytes(fields));
            return HexFormat.of().formatHex(digest);
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Set<String> HASHED_ALWAYS = Set.of("language", "code", "packages", "env", "stdin", "network");

    private static boolean unset(JsonNode value) {
        return value.isNull() || value.isMissingNode() || (value.isBoolean() && !value.booleanValue())
                || value.isContainerNode() && value.isEmpty() || value.isTextual() && value.textValue().isEmpty();
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** Marks a stored job as a session's environment build, which its views and pages then say. */
    public void markSessionBuild(UUID jobId) {
        QueueSql.update(db, "MarkSessionBuild", Map.of("job", jobId));
    }
}

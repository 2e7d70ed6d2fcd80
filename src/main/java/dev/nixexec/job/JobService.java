package dev.nixexec.job;

import dev.nixexec.refusal.Refusal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.PackageName;
import dev.nixexec.nix.PackagePolicy;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.workspace.Artifact;
import dev.nixexec.workspace.JobFiles;
import dev.nixexec.workspace.JobInputs;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Submitting, reading, listing, cancelling and waiting for jobs: the service methods REST and MCP
 * both call. Every read is scoped to the caller's tenant; another tenant's job is "not found".
 */
@ApplicationScoped
public class JobService {

    /**
     * What a caller submits. An empty timeout means the service default. A host workspace comes
     * only from an MCP root in local mode, already checked by {@link HostWorkspaces}.
     */
    public record Submission(String language, String code, List<String> packages, Map<String, String> env,
            String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
            Optional<Path> hostWorkspace, JobFiles files) {

        public Submission {
            files = files == null ? JobFiles.NONE : files;
            packages = packages == null ? List.of() : List.copyOf(packages);
            env = env == null ? Map.of() : Map.copyOf(env);
            stdin = stdin == null ? "" : stdin;
            timeout = timeout == null ? Optional.empty() : timeout;
            metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
            hostWorkspace = hostWorkspace == null ? Optional.empty() : hostWorkspace;
        }

        /** A submission with no host workspace: what REST and remote tenants send. */
        public Submission(String language, String code, List<String> packages, Map<String, String> env,
                String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata) {
            this(language, code, packages, env, stdin, timeout, network, metadata, Optional.empty(), JobFiles.NONE);
        }

        /** A submission with a host workspace (MCP roots, local mode) and no files. */
        public Submission(String language, String code, List<String> packages, Map<String, String> env,
                String stdin, Optional<Duration> timeout, boolean network, Map<String, Object> metadata,
                Optional<Path> hostWorkspace) {
            this(language, code, packages, env, stdin, timeout, network, metadata, hostWorkspace, JobFiles.NONE);
        }

        ExecutionRequest execution() {
            return new ExecutionRequest(language, code, packages, env, stdin, timeout, network);
        }
    }

    /** A submitted (or, for a repeated idempotency key, the earlier) job, and whether it is new. */
    public record Submitted(JobView job, boolean created) {
    }

    /** One page of a list, newest first; {@code nextCursor} is null on the last page. */
    public record Page(List<JobView> items, String nextCursor) {
    }

    /** Filters of a list; null fields do not filter. {@code packageName} matches one of the job's packages exactly. */
    public record Filter(JobStatus status, String language, OffsetDateTime since, OffsetDateTime until,
            String packageName, UUID keyId, String nodeId) {

        public Filter(JobStatus status, String language, OffsetDateTime since, OffsetDateTime until) {
            this(status, language, since, until, null, null, null);
        }
    }

    private final NixExecConfig config;
    private volatile boolean stopping;
    /**
     * Queued jobs of all tenants, as last counted plus this node's submissions since: counting scans
     * every queued row, so it happens at most once a second, or when the cap looks reached.
     */
    private long queuedEstimate;
    private long queuedCountedAt;
    private final ExecutionEngine engine;
    private final Tenants tenants;
    private final AuditLog audit;
    private final JobNotifications notifications;
    private final EntityManager em;
    private final ObjectMapper json;
    private final ObjectMapper canonical;
    private final HostWorkspaces hostWorkspaces;
    private final JobMetrics metrics;
    private final JobInputs inputs;
    private final LocalSlots localSlots;
    @jakarta.inject.Inject
    JobTransitions transitions;

    public JobService(NixExecConfig config, ExecutionEngine engine, Tenants tenants, AuditLog audit,
            JobNotifications notifications, EntityManager em, ObjectMapper json, HostWorkspaces hostWorkspaces,
            JobMetrics metrics, JobInputs inputs, LocalSlots localSlots) {
        this.config = config;
        this.localSlots = localSlots;
        this.inputs = inputs;
        this.hostWorkspaces = hostWorkspaces;
        this.metrics = metrics;
        this.engine = engine;
        this.tenants = tenants;
        this.audit = audit;
        this.notifications = notifications;
        this.em = em;
        this.json = json;
        this.canonical = json.copy().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    }

    /** From the first moment of shutdown, new jobs are refused (503) rather than left to a stopping node. */
    void stopping(@jakarta.enterprise.event.Observes @jakarta.annotation.Priority(0) io.quarkus.runtime.ShutdownEvent event) {
        stopping = true;
    }

    public Submitted submit(Caller caller, Submission submission, String idempotencyKey) {
        return submit(caller, submission, idempotencyKey, UUID.randomUUID());
    }

    /**
     * Submits and waits up to {@code wait} for the job to end, as {@link #await} would, without
     * reading back the job it just stored: its end is watched for before it exists.
     */
    public Submitted submit(Caller caller, Submission submission, String idempotencyKey, Duration wait) {
        if (wait.isZero() || wait.isNegative()) {
            return submit(caller, submission, idempotencyKey);
        }
        UUID id = UUID.randomUUID();
        long deadline = System.nanoTime() + capped(wait).toNanos();
        try (EndWatch end = new EndWatch(id)) {
            Submitted submitted = submit(caller, submission, idempotencyKey, id);
            if (!submitted.job().id().equals(id)) {
                // an earlier submission with this idempotency key: wait for that job instead
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                return new Submitted(left.isZero() ? submitted.job() : await(caller, submitted.job().id(), left), false);
            }
            return new Submitted(end.until(submitted.job(), deadline, () -> get(caller, id)), true);
        }
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
        engine.validate(submission.execution());
        int metadataBytes = write(submission.metadata()).getBytes(StandardCharsets.UTF_8).length;
        if (metadataBytes > config.jobs().maxMetadataBytes()) {
            throw new InvalidRequestException(List.of(new FieldError("metadata", "metadata is " + metadataBytes
                    + " bytes as JSON, at most " + config.jobs().maxMetadataBytes() + " are kept")), true);
        }
        if (submission.hostWorkspace().isPresent()
                && !submission.hostWorkspace().equals(submission.hostWorkspace().flatMap(hostWorkspaces::permit))) {
            throw new InvalidRequestException(List.of(new FieldError("workspace",
                    "host directories are mounted only in local mode, from allowed prefixes")), false);
        }
        if (submission.hostWorkspace().isPresent() && !submission.files().isEmpty()) {
            throw new InvalidRequestException(List.of(new FieldError("workspace",
                    "a job with a host directory at /workspace takes no workspace, files or artifacts")), false);
        }
        if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 200)) {
            throw new InvalidRequestException(List.of(new FieldError("Idempotency-Key", "must be 1 to 200 characters")), false);
        }
        String hash = requestHash(submission);
        Optional<LocalSlots.Slot> slot = localSlots.take();
        boolean handedOver = false;
        try {
            Stored stored = QuarkusTransaction.requiringNew().call(() -> insert(id, caller, submission, idempotencyKey,
                    hash, slot));
            Submitted submitted = stored.submitted();
            if (submitted.created()) {
                metrics.submitted(submitted.job().language());
                if (stored.claimedHere().isPresent()) {
                    // from here the slot is the run's to give back, whatever happens
                    handedOver = true;
                    slot.get().run(stored.claimedHere().get());
                } else {
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
        } finally {
            if (!handedOver) {
                slot.ifPresent(LocalSlots.Slot::release);
            }
        }
    }

    /** A submission as stored, and the job as claimed by this node when it went straight to a local slot. */
    private record Stored(Submitted submitted, Optional<ClaimedJob> claimedHere) {
    }

    private Stored insert(UUID id, Caller caller, Submission s, String idempotencyKey, String hash,
            Optional<LocalSlots.Slot> slot) {
        TenantPolicy policy = tenants.policy(caller.tenantId());
        checkPolicy(s, policy);
        if (idempotencyKey != null) {
            Optional<Submitted> earlier = existing(caller, idempotencyKey, hash);
            if (earlier.isPresent()) {
                return new Stored(earlier.get(), Optional.empty());
            }
        }
        long allQueued = queuedOfAllTenants();
        if (allQueued >= config.jobs().maxQueued()) {
            throw new Refusal(Refusal.Kind.UNAVAILABLE, "the queue is full (" + allQueued + " jobs waiting); submit again later");
        }
        int maxQueued = Optional.ofNullable(policy.maxQueued()).orElse(config.jobs().maxQueuedPerTenant());
        Job job = new Job();
        job.id = id;
        job.tenantId = caller.tenantId();
        job.keyId = caller.keyId();
        job.status = JobStatus.QUEUED.id();
        job.language = s.language().toLowerCase(java.util.Locale.ROOT);
        job.code = s.code();
        job.packages = write(s.packages());
        job.env = write(s.env());
        job.stdin = s.stdin();
        job.timeoutMs = s.timeout().orElse(config.sandbox().timeout()).toMillis();
        job.network = s.network();
        job.hostWorkspace = s.hostWorkspace().map(Path::toString).orElse(null);
        job.metadata = write(s.metadata());
        job.idempotencyKey = idempotencyKey;
        job.requestHash = hash;
        job.maxAttempts = config.jobs().maxAttempts();
        OffsetDateTime now = JobTransitions.storedNow();
        job.createdAt = now;
        job.runAfter = now;
        String submitted = write(Map.of("language", job.language, "packages", s.packages(),
                "env_names", new ArrayList<>(new TreeMap<>(s.env()).keySet())));
        // One statement (JobTransitions.INSERT): the tenant's cap, the job, its events, audit and
        // wake-up; given this node's free slot, stored as claimed by it when the claim rule would
        // give it that slot now.
        JobTransitions.Inserted inserted = transitions.insert(job, maxQueued, submitted,
                slot.map(LocalSlots.Slot::nodeId));
        if (!inserted.stored()) {
            throw new Refusal(Refusal.Kind.TOO_MANY, "the tenant has " + inserted.queuedBefore()
                    + " queued jobs, its cap is " + maxQueued);
        }
        inputs.attach(caller, job.id, s.files());
        if (inserted.claimedBy().isEmpty()) {
            return new Stored(new Submitted(view(job), true), Optional.empty());
        }
        job.status = JobStatus.BUILDING.id();
        job.nodeId = inserted.claimedBy().get();
        job.attempt = 1;
        job.claimedAt = now;
        return new Stored(new Submitted(view(job), true), Optional.of(new ClaimedJob(job.id, job.tenantId, 1,
                job.language, job.code, s.packages(), s.env(), job.stdin, Duration.ofMillis(job.timeoutMs), job.network,
                policy, s.hostWorkspace(), !s.files().isEmpty())));
    }

    private synchronized long queuedOfAllTenants() {
        long now = System.nanoTime();
        if (now - queuedCountedAt > 1_000_000_000L || queuedEstimate >= config.jobs().maxQueued()) {
            queuedEstimate = Job.count("status = 'queued'");
            queuedCountedAt = now;
        }
        return queuedEstimate++;
    }

    private Optional<Submitted> existing(Caller caller, String idempotencyKey, String hash) {
        return Job.<Job>find("tenantId = ?1 and idempotencyKey = ?2", caller.tenantId(), idempotencyKey)
                .firstResultOptional().map(job -> {
                    if (!hash.equals(job.requestHash)) {
                        throw new Refusal(Refusal.Kind.CONFLICT,
                                "Idempotency-Key '" + idempotencyKey + "' was used for a different request");
                    }
                    return new Submitted(view(job), false);
                });
    }

    private void checkPolicy(Submission s, TenantPolicy policy) {
        List<FieldError> errors = new ArrayList<>();
        String language = s.language().toLowerCase(java.util.Locale.ROOT);
        if (policy.languages() != null && !policy.languages().contains(language)) {
            errors.add(new FieldError("language", "language '" + language + "' is not allowed for this tenant; allowed: "
                    + String.join(", ", policy.languages())));
        }
        PackagePolicy packages = new PackagePolicy(Optional.ofNullable(policy.packageDenylist()).orElse(List.of()),
                Optional.ofNullable(policy.packageAllowlist()));
        for (int i = 0; i < s.packages().size(); i++) {
            packages.rejection(PackageName.parse(s.packages().get(i)))
                    .ifPresent(reason -> errors.add(new FieldError("packages", reason)));
        }
        if (s.network() && !policy.networkAllowed()) {
            errors.add(new FieldError("network", "network \"full\" is not allowed for this tenant"));
        }
        if (policy.maxTimeoutSeconds() != null && s.timeout().isPresent()
                && s.timeout().get().toSeconds() > policy.maxTimeoutSeconds()) {
            errors.add(new FieldError("timeout", "timeout may be at most " + policy.maxTimeoutSeconds() + "s for this tenant"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
    }

    /** The job, if it belongs to the caller's tenant. */
    @Transactional
    public JobView get(Caller caller, UUID id) {
        return view(owned(caller, id));
    }

    /** The job once it is terminal, or as it is when {@code wait} is up; never busy-polls. */
    public JobView await(Caller caller, UUID id, Duration wait) {
        if (wait.isZero() || wait.isNegative()) {
            return get(caller, id);
        }
        long deadline = System.nanoTime() + capped(wait).toNanos();
        // Watching before the first read: an end between the two cannot go unnoticed.
        try (EndWatch end = new EndWatch(id)) {
            return end.until(get(caller, id), deadline, () -> get(caller, id));
        }
    }

    private Duration capped(Duration wait) {
        return wait.compareTo(config.jobs().maxWait()) > 0 ? config.jobs().maxWait() : wait;
    }

    /**
     * Waits for one job's end: woken by its end (handed over as stored when it ended on this
     * node), and re-reading it at the poll interval in case a notification was missed.
     */
    private final class EndWatch implements AutoCloseable {
        private final Semaphore ended = new Semaphore(0);
        private final AtomicReference<JobView> endedHere = new AtomicReference<>();
        private final JobNotifications.Watch watch;

        EndWatch(UUID id) {
            watch = notifications.watchEnd(id, job -> {
                job.ifPresent(endedHere::set);
                ended.release();
            });
        }

        JobView until(JobView job, long deadline, Supplier<JobView> read) {
            try {
                while (!job.terminal()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    ended.tryAcquire(Math.min(left, config.jobs().poll().toNanos()), TimeUnit.NANOSECONDS);
                    ended.drainPermits();
                    job = endedHere.get() != null ? endedHere.get() : read.get();
                }
                return job;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return read.get();
            }
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    @Transactional
    public Page list(Caller caller, Filter filter, int limit, String cursor) {
        return list(caller.tenantId(), filter, limit, cursor);
    }

    /** A tenant's jobs, newest first; which tenant the caller may list is the caller's to check. */
    @Transactional
    public Page list(UUID tenantId, Filter filter, int limit, String cursor) {
        StringBuilder query = new StringBuilder("tenantId = :tenant");
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("tenant", tenantId);
        if (filter.status() != null) {
            query.append(" and status = :status");
            params.put("status", filter.status().id());
        }
        if (filter.language() != null) {
            query.append(" and language = :language");
            params.put("language", filter.language());
        }
        if (filter.since() != null) {
            query.append(" and createdAt >= :since");
            params.put("since", filter.since());
        }
        if (filter.until() != null) {
            query.append(" and createdAt < :until");
            params.put("until", filter.until());
        }
        if (filter.packageName() != null) {
            query.append(" and function('jsonb_exists', packages, :package) = true");
            params.put("package", filter.packageName());
        }
        if (filter.keyId() != null) {
            query.append(" and keyId = :key");
            params.put("key", filter.keyId());
        }
        if (filter.nodeId() != null) {
            query.append(" and nodeId = :node");
            params.put("node", filter.nodeId());
        }
        if (cursor != null) {
            String[] parts = decodeCursor(cursor);
            query.append(" and (createdAt < :cursorAt or (createdAt = :cursorAt and id < :cursorId))");
            params.put("cursorAt", OffsetDateTime.parse(parts[0]));
            params.put("cursorId", UUID.fromString(parts[1]));
        }
        query.append(" order by createdAt desc, id desc");
        List<Job> jobs = Job.<Job>find(query.toString(), params).page(0, limit + 1).list();
        String next = null;
        if (jobs.size() > limit) {
            jobs = jobs.subList(0, limit);
            Job last = jobs.get(limit - 1);
            next = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((last.createdAt + "|" + last.id).getBytes(StandardCharsets.UTF_8));
        }
        return new Page(jobs.stream().map(this::view).toList(), next);
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
        // One statement (JobTransitions.CANCEL) with its events, audit and notifications; then the
        // job as it is (another tenant's, or none: not found).
        transitions.cancel(caller.tenantId(), id, caller.keyId());
        return view(owned(caller, id));
    }

    /** The job's events after {@code afterSeq}, if the job is the caller's tenant's. */
    @Transactional
    public List<JobEvents.Event> events(Caller caller, UUID id, int afterSeq) {
        List<JobEvents.Event> events = JobEvents.after(em, caller.tenantId(), id, afterSeq);
        boolean ended = events.stream().anyMatch(e -> e.kind().equals(JobEvents.RESULT));
        if (!events.isEmpty() && !ended) {
            return events;
        }
        // none: another tenant's job (404) or a quiet one; the result: the job, read after it ended
        Job job = owned(caller, id);
        return events.stream().map(e -> e.kind().equals(JobEvents.RESULT)
                ? new JobEvents.Event(e.seq(), e.kind(), write(view(job))) : e).toList();
    }

    /**
     * As {@link #events}, for a follower that gets the job itself when it ends: the result event
     * comes empty, and one query reads them (none for another tenant's job).
     */
    @Transactional
    public List<JobEvents.Event> eventsWithoutResult(Caller caller, UUID id, int afterSeq) {
        return JobEvents.after(em, caller.tenantId(), id, afterSeq);
    }

    public JobNotifications.Watch watch(UUID id, Runnable onChange) {
        return notifications.watch(id, onChange);
    }

    /** See {@link JobNotifications#watchEnd}; the caller has checked that the job is its tenant's. */
    public JobNotifications.Watch watchEnd(UUID id, Consumer<Optional<JobView>> onEnd) {
        return notifications.watchEnd(id, onEnd);
    }

    /**
     * The job's events after {@code afterSeq} as they happen, ending with its {@code result}: what the
     * REST and UI event streams send. Read from the database, so the job may run on any node; the
     * caller's tenant is checked before the stream starts.
     */
    public Multi<JobEvents.Event> follow(Caller caller, UUID id, int afterSeq) {
        owned(caller, id);
        return Multi.createFrom().emitter(emitter -> {
            Semaphore changed = new Semaphore(0);
            Thread follower = Thread.ofVirtual().name("follow-" + id).start(() -> {
                int seq = afterSeq;
                try (AutoCloseable counted = metrics.follower(); AutoCloseable watch = watch(id, changed::release)) {
                    while (!emitter.isCancelled()) {
                        List<JobEvents.Event> events = events(caller, id, seq);
                        for (JobEvents.Event e : events) {
                            emitter.emit(e);
                            seq = e.seq();
                            if (e.kind().equals("result")) {
                                emitter.complete();
                                return;
                            }
                        }
                        if (events.isEmpty()) {
                            changed.tryAcquire(1, TimeUnit.SECONDS);
                            changed.drainPermits();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    emitter.fail(e);
                }
            });
            emitter.onTermination(follower::interrupt);
        });
    }

    /** What was submitted and how it went, for review; env values only for roles that may see them. */
    @Transactional
    public JobDetail detail(Caller caller, UUID id) {
        Job job = owned(caller, id);
        Map<String, String> env = new TreeMap<>(read(job.env, new TypeReference<Map<String, String>>() { }));
        return new JobDetail(view(job), job.keyId, job.code, job.stdin, List.copyOf(env.keySet()),
                caller.role().seesEnvValues() ? Optional.of(env) : Optional.empty(), job.timeoutMs, job.network,
                job.maxAttempts, job.claimedAt, job.cancelRequested);
    }

    private Job owned(Caller caller, UUID id) {
        Job job = Job.findById(id);
        if (job == null || !job.tenantId.equals(caller.tenantId())) {
            throw Refusal.notFound(id);
        }
        return job;
    }

    JobView view(Job job) {
        JobView.EnvironmentView environment = job.storePath == null && job.cacheHit == null ? null
                : new JobView.EnvironmentView(job.storePath, job.nixpkgsRevision, job.cacheHit, job.buildMs);
        JobView.ErrorView error = job.errorCode == null ? null : new JobView.ErrorView(job.errorCode, job.errorMessage);
        return new JobView(job.id, job.status, job.language, read(job.packages, new TypeReference<List<String>>() { }),
                read(job.metadata, new TypeReference<Map<String, Object>>() { }), job.createdAt, job.startedAt,
                job.finishedAt, job.exitCode, job.signal, job.timedOut, job.limitHit, job.durationMs, job.stdout,
                job.stderr, job.stdoutBytes, job.stderrBytes, job.stdoutTruncated, job.stderrTruncated, environment,
                error, job.attempt, job.nodeId,
                job.artifacts == null ? List.of() : read(job.artifacts, new TypeReference<List<Artifact>>() { }));
    }

    private String requestHash(Submission s) {
        try {
            Map<String, Object> fields = new TreeMap<>();
            fields.put("language", s.language());
            fields.put("code", s.code());
            fields.put("packages", s.packages());
            fields.put("env", new TreeMap<>(s.env()));
            fields.put("stdin", s.stdin());
            fields.put("timeout_ms", s.timeout().map(Duration::toMillis).orElse(null));
            fields.put("network", s.network());
            fields.put("host_workspace", s.hostWorkspace().map(Path::toString).orElse(null));
            fields.put("metadata", s.metadata());
            if (!s.files().isEmpty()) {
                fields.put("files", s.files());
            }
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.writeValueAsBytes(fields));
            return HexFormat.of().formatHex(digest);
        } catch (JsonProcessingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String[] decodeCursor(String cursor) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\\|", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException();
            }
            OffsetDateTime.parse(parts[0]);
            UUID.fromString(parts[1]);
            return parts;
        } catch (RuntimeException e) {
            throw new InvalidRequestException(List.of(new FieldError("cursor", "not a cursor this service gave out")), false);
        }
    }

    String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private <T> T read(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.nixexec.job;

import dev.nixexec.config.AfterCommit;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.tenant.Tenants;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.vertx.core.Context;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The job platform's Prometheus figures ({@code /q/metrics}). Callers in the queue, the service and
 * the worker make one call each; what is counted, and how, lives here. A job's end is counted only
 * once the transaction that ends it commits, so a rolled-back finish is not counted. The job counters
 * carry the tenant's name as a label, bounded by {@code nixexec.jobs.metric-tenants}
 * ({@link TenantLabels}).
 */
@ApplicationScoped
public class JobMetrics {

    /** The queue gauges run a query; scrapes within this window reuse the last figures. */
    static final Duration QUEUE_FIGURES_MAX_AGE = Duration.ofSeconds(5);

    private final MeterRegistry registry;
    private final AfterCommit afterCommit;
    private final DataSource db;
    private final TenantLabels tenantLabels;
    private final Counter sandboxFailures;
    private final List<Gauge> gauges;
    private final AtomicInteger followers = new AtomicInteger();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong oldestQueuedMillis = new AtomicLong();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile long queueCountedAt;

    public JobMetrics(MeterRegistry registry, AfterCommit afterCommit, AgroalDataSource db, Tenants tenants,
            NixExecConfig config) {
        this.registry = registry;
        this.tenantLabels = new TenantLabels(config.jobs().metricTenants(), id -> tenants.find(id).map(t -> t.name));
        this.afterCommit = afterCommit;
        this.db = db;
        queueCountedAt = System.nanoTime() - QUEUE_FIGURES_MAX_AGE.toNanos() - 1;
        gauges = List.of(
                Gauge.builder("nixexec.sse.followers", followers, AtomicInteger::get)
                        .description("clients following a job's event stream now (REST and UI)").register(registry),
                Gauge.builder("nixexec.queue.depth", this, m -> m.queueFigures().queued.get())
                        .description("queued jobs of all tenants").register(registry),
                Gauge.builder("nixexec.queue.oldest.age", this, m -> m.queueFigures().oldestQueuedMillis.get() / 1000.0)
                        .baseUnit("seconds").description("how long the oldest queued job has waited").register(registry));
        // registered up front so dashboards see a zero, not a missing series, until the first failure
        sandboxFailures = Counter.builder("nixexec.sandbox.failures").description("runs the sandbox could not start or keep")
                .register(registry);
    }

    /**
     * A gauge reads this instance; when the application stops (and, in tests, starts again in the
     * same JVM with a registry that outlives it) the new instance's gauges must not be shadowed.
     */
    @PreDestroy
    void unregister() {
        gauges.forEach(registry::remove);
    }

    /** A job was stored as queued. */
    public void submitted(String language, UUID tenantId) {
        Counter.builder("nixexec.jobs.submitted").tag("language", language).tag("tenant", tenantLabels.of(tenantId))
                .description("jobs accepted").register(registry).increment();
    }

    /**
     * A submission started its job's run on a free slot of this node before it committed (the run
     * is called off when the job was not stored as this node's).
     */
    void startedEarly() {
        Counter.builder("nixexec.jobs.early.runs")
                .description("runs started on this node before their submission committed").register(registry).increment();
    }

    /** A job reached a terminal status (in the current transaction, if there is one). */
    void ended(Job job) {
        String tenant = tenantLabels.of(job.tenantId());
        Runnable count = () -> countEnd(job.status(), job.language(), tenant, job.durationMs(), job.buildMs(),
                job.cacheHit(), job.errorCode(), job.claimedAt() == null || job.runAfter() == null ? null
                        : Duration.between(job.runAfter(), job.claimedAt()));
        afterCommit.run(count);
    }

    private void countEnd(String status, String language, String tenant, Long runMs, Long buildMs, Boolean cacheHit,
            String errorCode, Duration queueWait) {
        Counter.builder("nixexec.jobs.finished").tag("status", status).tag("language", language).tag("tenant", tenant)
                .description("jobs that reached a terminal status").register(registry).increment();
        if (runMs != null) {
            Timer.builder("nixexec.job.run").tag("language", language).publishPercentileHistogram()
                    .description("wall time of the job's code in the sandbox").register(registry)
                    .record(Duration.ofMillis(runMs));
        }
        if (cacheHit != null) {
            String result = cacheHit ? "hit" : "miss";
            Counter.builder("nixexec.environment.cache").tag("result", result)
                    .description("environments taken from the cache (hit) or built (miss)").register(registry).increment();
            if (buildMs != null) {
                Timer.builder("nixexec.environment.build").tag("cache", result).publishPercentileHistogram()
                        .description("time to get the job's Nix environment").register(registry)
                        .record(Duration.ofMillis(buildMs));
            }
        }
        if ("sandbox_failed".equals(errorCode)) {
            sandboxFailures.increment();
        }
        if (queueWait != null && !queueWait.isNegative()) {
            Timer.builder("nixexec.jobs.claim.latency").publishPercentileHistogram()
                    .description("time from a job becoming claimable to a worker claiming it (recorded when it ends)")
                    .register(registry).record(queueWait);
        }
    }

    /** One more live follower until the returned handle is closed. */
    AutoCloseable follower() {
        followers.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                followers.decrementAndGet();
            }
        };
    }

    /**
     * Counts the queue at most every few seconds. A scrape on an event-loop thread must not block,
     * so there the count runs in the background and the scrape sees the previous figures.
     */
    private JobMetrics queueFigures() {
        if (System.nanoTime() - queueCountedAt < QUEUE_FIGURES_MAX_AGE.toNanos() || !refreshing.compareAndSet(false, true)) {
            return this;
        }
        if (Context.isOnEventLoopThread()) {
            Thread.ofVirtual().name("queue-gauges").start(this::countQueue);
        } else {
            countQueue();
        }
        return this;
    }

    private void countQueue() {
        try {
            QuarkusTransaction.requiringNew().run(() -> QueueSql.single(db, "QueueNow", Map.of(), rs -> {
                queued.set(rs.getLong("queued"));
                oldestQueuedMillis.set(rs.getLong("oldest_ms"));
                return rs;
            }));
            queueCountedAt = System.nanoTime();
        } finally {
            refreshing.set(false);
        }
    }
}

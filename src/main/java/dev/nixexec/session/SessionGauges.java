package dev.nixexec.session;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.vertx.core.Context;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code nixexec_sessions{status}}: the sessions of all tenants that are not destroyed, by status
 * ({@code building}, {@code ready}, {@code failed}), as the database has them, so every node tells
 * the fleet's figure. Scrapes within {@link #MAX_AGE} reuse the last count; a scrape on an event
 * loop must not block, so there the count runs in the background and it sees the previous one.
 */
@Startup
@ApplicationScoped
public class SessionGauges {

    static final Duration MAX_AGE = Duration.ofSeconds(5);
    private static final List<SessionStatus> LIVE = List.of(SessionStatus.BUILDING, SessionStatus.READY, SessionStatus.FAILED);

    private final MeterRegistry registry;
    private final SessionRepository repository;
    private final Map<SessionStatus, Long> counts = new ConcurrentHashMap<>();
    private final List<Gauge> gauges;
    private final AtomicBoolean counting = new AtomicBoolean();
    private volatile long countedAt;

    SessionGauges(MeterRegistry registry, SessionRepository repository) {
        this.registry = registry;
        this.repository = repository;
        countedAt = System.nanoTime() - MAX_AGE.toNanos() - 1;
        gauges = LIVE.stream().map(status -> Gauge.builder("nixexec.sessions", this, g -> g.count(status))
                .tag("status", status.id()).description("sessions of all tenants, not destroyed, by status")
                .register(registry)).toList();
    }

    /** The registry outlives this instance when tests start the application again in one JVM. */
    @PreDestroy
    void unregister() {
        gauges.forEach(registry::remove);
    }

    private double count(SessionStatus status) {
        if (System.nanoTime() - countedAt >= MAX_AGE.toNanos() && counting.compareAndSet(false, true)) {
            if (Context.isOnEventLoopThread()) {
                Thread.ofVirtual().name("session-gauges").start(this::recount);
            } else {
                recount();
            }
        }
        return counts.getOrDefault(status, 0L);
    }

    private void recount() {
        try {
            Map<SessionStatus, Long> now = QuarkusTransaction.requiringNew().call(repository::countByStatus);
            LIVE.forEach(status -> counts.put(status, now.getOrDefault(status, 0L)));
            countedAt = System.nanoTime();
        } finally {
            counting.set(false);
        }
    }
}

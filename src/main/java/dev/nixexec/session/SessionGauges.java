package dev.nixexec.session;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.vertx.core.Context;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Tuple;
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
    private final EntityManager em;
    private final Map<SessionStatus, Long> counts = new ConcurrentHashMap<>();
    private final List<Gauge> gauges;
    private final AtomicBoolean counting = new AtomicBoolean();
    private volatile long countedAt;

    SessionGauges(MeterRegistry registry, EntityManager em) {
        this.registry = registry;
        this.em = em;
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
            @SuppressWarnings("unchecked")
            List<Tuple> rows = QuarkusTransaction.requiringNew().call(() -> em.createNativeQuery(
                    "SELECT status, count(*) AS n FROM sessions WHERE status <> 'destroyed' GROUP BY status", Tuple.class)
                    .getResultList());
            Map<SessionStatus, Long> now = new java.util.EnumMap<>(SessionStatus.class);
            rows.forEach(row -> now.put(SessionStatus.byId(row.get("status", String.class)), row.get("n", Number.class).longValue()));
            LIVE.forEach(status -> counts.put(status, now.getOrDefault(status, 0L)));
            countedAt = System.nanoTime();
        } finally {
            counting.set(false);
        }
    }
}

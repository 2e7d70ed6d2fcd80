package dev.nixexec.attach;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.sandbox.BwrapShells;
import dev.nixexec.sandbox.Shell;
import dev.nixexec.sandbox.ShellEnd;
import dev.nixexec.sandbox.TerminalSize;
import dev.nixexec.session.SessionShell;
import dev.nixexec.session.SessionShells;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.KeyWatch;
import dev.nixexec.tenant.Tenants;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.WebSocketConnection;
import io.vertx.core.buffer.Buffer;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The shells attached on this node: a seat per shell within its tenant's cap, the hand-off from
 * {@link AttachCheck} to the endpoint, and each shell's life from the connection's open to its end
 * (audit records of both, the close code that says why it ended). A shell lasts only as long as
 * the key that attached it (revoked or expired: 4005) and the tenant's policy allows it as it
 * runs (narrowed below it: 4006). Each shell is recorded ({@link ShellRecording}: what it showed and
 * what was typed, bounded) and the recording stored when it ends ({@link ShellRecordings}).
 */
// made at start, so that its gauge reads 0 before the first attach rather than being missing
@io.quarkus.runtime.Startup
@ApplicationScoped
public class AttachedShells {

    /** Set by {@link AttachCheck} on an accepted request; a value a client sent is replaced. */
    static final String TICKET_HEADER = "X-Nixexec-Attach-Ticket";
    private static final Logger LOG = Logger.getLogger(AttachedShells.class);

    /** One of a tenant's shells on this node, given back once. */
    interface Seat extends AutoCloseable {
        @Override
        void close();
    }

    /** An attach that passed every check, with its session open, waiting for its connection. */
    record Accepted(Caller caller, SessionShell session, Seat seat) {
    }

    private final NixExecConfig config;
    private final BwrapShells shells;
    private final AuditLog audit;
    private final Instance<SessionShells> sessions;
    private final KeyWatch keys;
    private final Tenants tenants;
    private final ShellRecordings recordings;
    private final com.fasterxml.jackson.databind.ObjectMapper json;
    private final ConcurrentHashMap<UUID, Integer> seats = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Accepted> accepted = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Attached> open = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final Gauge attachedGauge;

    public AttachedShells(NixExecConfig config, BwrapShells shells, AuditLog audit, Instance<SessionShells> sessions,
            KeyWatch keys, Tenants tenants, ShellRecordings recordings, com.fasterxml.jackson.databind.ObjectMapper json,
            MeterRegistry registry) {
        this.recordings = recordings;
        this.json = json;
        this.registry = registry;
        this.attachedGauge = Gauge.builder("nixexec.shells.attached", open, Map::size)
                .description("shells attached to sessions on this node now").register(registry);
        this.sessions = sessions;
        this.keys = keys;
        this.tenants = tenants;
        this.config = config;
        this.shells = shells;
        this.audit = audit;
    }

    Optional<Seat> seat(UUID tenantId) {
        int cap = config.attach().maxShellsPerTenant();
        boolean[] taken = new boolean[1];
        seats.compute(tenantId, (t, n) -> {
            int now = n == null ? 0 : n;
            taken[0] = now < cap;
            return taken[0] ? now + 1 : n;
        });
        if (!taken[0]) {
            return Optional.empty();
        }
        AtomicBoolean given = new AtomicBoolean();
        return Optional.of(() -> {
            if (given.compareAndSet(false, true)) {
                seats.computeIfPresent(tenantId, (t, n) -> n <= 1 ? null : n - 1);
            }
        });
    }

    /** Keeps an accepted attach for its connection; one never claimed is let go after a while. */
    String hold(Accepted attach) {
        String ticket = UUID.randomUUID().toString();
        accepted.put(ticket, attach);
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(java.time.Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Accepted unclaimed = accepted.remove(ticket);
            if (unclaimed != null) {
                unclaimed.session().close();
                unclaimed.seat().close();
            }
        });
        return ticket;
    }

    /** The connection opened: the shell starts in the session's sandbox. */
    void opened(WebSocketConnection connection) {
        String ticket = connection.handshakeRequest().header(TICKET_HEADER);
        Accepted attach = ticket == null ? null : accepted.remove(ticket);
        if (attach == null) {
            connection.closeAndAwait(new CloseReason(1011, "the attach was not prepared"));
            return;
        }
        Attached attached = new Attached(connection, attach);
        open.put(connection.id(), attached);
        attached.start();
    }

    void input(WebSocketConnection connection, Buffer bytes) {
        Attached attached = open.get(connection.id());
        if (attached != null) {
            attached.input(bytes.getBytes());
        }
    }

    void text(WebSocketConnection connection, String text) {
        Attached attached = open.get(connection.id());
        if (attached == null) {
            return;
        }
        Optional<TerminalSize> size = ResizeFrame.parse(text);
        if (size.isEmpty()) {
            attached.end(new CloseReason(1003, "a text frame must be {\"resize\":[columns,rows]}"));
            return;
        }
        attached.shell().ifPresent(s -> {
            s.resize(size.get());
            attached.recording.resize(size.get(), System.nanoTime());
        });
    }

    void closed(WebSocketConnection connection) {
        Attached attached = open.get(connection.id());
        if (attached != null) {
            attached.end(null);
        }
    }

    /**
     * A shell whose session was destroyed meanwhile (by a caller or by expiry, on any node) ends
     * (4004): its files are gone, and a destroyed session runs nothing.
     */
    @Scheduled(every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void endShellsOfDestroyedSessions() {
        if (open.isEmpty() || !sessions.isResolvable()) {
            return;
        }
        for (Attached attached : open.values()) {
            UUID session = attached.attach.session().sessionId();
            if (!sessions.get().live(session)) {
                attached.end(new CloseReason(ShellClose.SESSION_DESTROYED, "the session was destroyed"));
            }
        }
    }

    /**
     * A shell the tenant's policy no longer allows as it runs ends (4006): a policy change reaches
     * every node's cache at once (the change's notification), so this reads no database while the
     * policy stays.
     */
    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void endShellsThePolicyNoLongerAllows() {
        try {
            for (Attached attached : open.values()) {
                SessionShell session = attached.attach.session();
                session.disallowedBy(tenants.policy(session.tenantId())).ifPresent(why -> attached.end(
                        new CloseReason(ShellClose.POLICY_CHANGED, ShellClose.truncate("the tenant's policy changed: " + why))));
            }
        } catch (RuntimeException e) {
            // the database is away: the policies cannot be read, the shells stay as they were built
            LOG.warnf("the open shells could not be checked against their tenants' policies: %s", e.getMessage());
        }
    }

    /** Every shell ends with the service (1001). */
    @PreDestroy
    void stop() {
        open.values().forEach(a -> a.end(new CloseReason(1001, "the service stops")));
        // the registry outlives this instance when tests start the application again in one JVM
        registry.remove(attachedGauge);
    }

    /** One attached shell: its connection, session, input queue and end. */
    private final class Attached {
        private final WebSocketConnection connection;
        private final Accepted attach;
        private final LinkedBlockingQueue<byte[]> input = new LinkedBlockingQueue<>();
        private final AtomicLong pending = new AtomicLong();
        private final AtomicBoolean ending = new AtomicBoolean();
        private volatile CloseReason closeReason;
        private volatile Shell shell;
        private volatile KeyWatch.Watched key;
        private final UUID recordingId = UUID.randomUUID();
        private final java.time.OffsetDateTime startedAt = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC);
        private final ShellRecording recording;

        Attached(WebSocketConnection connection, Accepted attach) {
            this.connection = connection;
            this.attach = attach;
            this.recording = new ShellRecording(config.attach().maxRecordingBytes(), TerminalSize.DEFAULT,
                    startedAt.toInstant(), System.nanoTime());
        }

        Optional<Shell> shell() {
            return Optional.ofNullable(shell);
        }

        void start() {
            SessionShell session = attach.session();
            record("shell_started", Map.of("session_id", session.sessionId().toString()));
            key = keys.watch(attach.caller(), reason -> end(new CloseReason(ShellClose.KEY_ENDED, reason)));
            try {
                shell = shells.start(session.sandbox(), TerminalSize.DEFAULT, config.attach().idleTimeout(),
                        bytes -> {
                            recording.output(bytes, System.nanoTime());
                            try {
                                connection.sendBinaryAndAwait(Buffer.buffer(bytes));
                            } catch (RuntimeException e) {
                                throw new IOException("the connection closed", e);
                            }
                        });
            } catch (IOException | RuntimeException e) {
                LOG.warnf("a shell in session %s could not start: %s", session.sessionId(), e.getMessage());
                finish(new CloseReason(1011, ShellClose.truncate("the shell could not start: " + e.getMessage())), null);
                return;
            }
            // the terminal is written by a platform thread: a native write pins a virtual thread's carrier
            Thread.ofPlatform().daemon().name("shell-input").start(this::writeInput);
            shell.ended().thenAccept(end -> finish(closeReason != null ? closeReason : ShellClose.of(end.cause()), end));
            if (closeReason != null) {
                // ended (its key, say) while the shell started
                shell.end(closeReason.getMessage());
            }
        }

        void input(byte[] bytes) {
            if (pending.addAndGet(bytes.length) > config.attach().maxPendingInputBytes()) {
                end(new CloseReason(1008, "more than " + config.attach().maxPendingInputBytes()
                        + " bytes of input the shell has not taken"));
                return;
            }
            recording.input(bytes, System.nanoTime());
            input.add(bytes);
        }

        private void writeInput() {
            try {
                while (true) {
                    byte[] bytes = input.take();
                    if (bytes.length == 0) {
                        return;
                    }
                    shell.write(bytes);
                    pending.addAndGet(-bytes.length);
                }
            } catch (IOException | InterruptedException e) {
                // the shell ended
            }
        }

        /** Ends the shell for this reason (null: the client closed the connection). */
        void end(CloseReason reason) {
            if (closeReason == null) {
                closeReason = reason == null ? new CloseReason(1000, "the client closed the connection") : reason;
            }
            Shell running = shell;
            if (running != null) {
                running.end(closeReason.getMessage());
            }
        }

        private void finish(CloseReason reason, ShellEnd end) {
            if (!ending.compareAndSet(false, true)) {
                return;
            }
            open.remove(connection.id());
            input.add(new byte[0]);
            try {
                Map<String, Object> detail = new java.util.LinkedHashMap<>();
                detail.put("session_id", attach.session().sessionId().toString());
                detail.put("close_code", reason.getCode());
                detail.put("reason", reason.getMessage());
                if (end != null) {
                    detail.put("bytes_in", end.bytesIn());
                    detail.put("bytes_out", end.bytesOut());
                    detail.put("duration_ms", end.duration().toMillis());
                    if (end.cause() instanceof ShellEnd.Exited exited) {
                        detail.put("exit_code", exited.exitCode());
                    }
                }
                if (store(reason, end)) {
                    detail.put("recording_id", recordingId.toString());
                }
                record("shell_ended", detail);
            } finally {
                if (key != null) {
                    key.close();
                }
                attach.session().close();
                attach.seat().close();
                if (connection.isOpen()) {
                    connection.close(reason).subscribe().with(v -> { }, e -> { });
                }
            }
        }

        /** Stores the shell's recording; false when it could not be (the audit record then names none). */
        private boolean store(CloseReason reason, ShellEnd end) {
            SessionShell session = attach.session();
            ShellRecordings.Recording stored = new ShellRecordings.Recording(recordingId, session.tenantId(),
                    session.sessionId(), attach.caller().keyId(), startedAt,
                    java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC), end == null ? 0 : end.bytesIn(),
                    end == null ? 0 : end.bytesOut(), recording.truncated(), reason.getCode(), reason.getMessage(),
                    end != null && end.cause() instanceof ShellEnd.Exited exited ? exited.exitCode() : null,
                    recording.cast(json));
            try {
                QuarkusTransaction.requiringNew().run(() -> recordings.store(stored));
                return true;
            } catch (RuntimeException e) {
                LOG.errorf(e, "the recording of a shell in session %s could not be written", session.sessionId());
                return false;
            }
        }

        private void record(String kind, Map<String, ?> detail) {
            try {
                QuarkusTransaction.requiringNew().run(() -> audit.record(kind, attach.caller().tenantId(), null,
                        attach.caller().keyId(), null, detail));
            } catch (RuntimeException e) {
                LOG.errorf(e, "the audit record %s of a shell could not be written", kind);
            }
        }
    }
}

package dev.nixexec.job;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.KeyWatch;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Waiting for jobs, all over one {@link JobWatch}: for a job's end (REST {@code ?wait}, MCP
 * {@code get_job}), for the end of a job being submitted (REST {@code POST ?wait}), and following
 * a job's events until it ends (the REST and UI event streams, MCP {@code run_code}). Events are
 * read from the database, so the job may run on any node; a job that ends on this node is handed
 * over as stored. Each wait holds its caller's key ({@link KeyWatch}): once the key is revoked or
 * expires, a wait answers 401, and an event stream ends with a {@code closed} event saying why.
 */
@ApplicationScoped
public class JobWaits {

    /** How often a quiet event stream reads again in case a notification was missed. */
    private static final Duration STREAM_RECHECK = Duration.ofSeconds(1);
    /** The last event of a stream cut short (its key was revoked or expired): its data is the reason. */
    public static final String CLOSED = "closed";

    /** What a follower does with what it reads. */
    public interface Follower {

        /** A {@code status}, {@code stdout} or {@code stderr} event, in order. */
        void event(JobEvents.Event event);

        /** The {@code result} event (stored empty) and the job as it ended. */
        default void ended(JobEvents.Event result, JobView job) {
        }

        /** Asked after each read; false stops following (the job goes on). */
        default boolean keepFollowing() {
            return true;
        }
    }

    private final NixExecConfig config;
    private final JobService intake;
    private final JobReads reads;
    private final JobViews views;
    private final JobNotifications notifications;
    private final JobMetrics metrics;
    private final KeyWatch keys;

    public JobWaits(NixExecConfig config, JobService intake, JobReads reads, JobViews views,
            JobNotifications notifications, JobMetrics metrics, KeyWatch keys) {
        this.keys = keys;
        this.config = config;
        this.intake = intake;
        this.reads = reads;
        this.views = views;
        this.notifications = notifications;
        this.metrics = metrics;
    }

    /** The job once it is terminal, or as it is when {@code wait} (at most the service's maximum) is up. */
    public JobView await(Caller caller, UUID id, Duration wait) {
        if (!wait.isPositive()) {
            return reads.get(caller, id);
        }
        WaitDeadline deadline = WaitDeadline.after(WaitDeadline.capped(wait, config.jobs().maxWait()));
        // watching before the first read: an end between the two cannot go unnoticed
        try (JobWatch end = JobWatch.ofEnd(notifications, id); KeyWatch.Watched key = keys.watch(caller, r -> end.wake())) {
            return untilEnded(caller, key, end, null, deadline);
        }
    }

    /**
     * Submits and waits up to {@code wait} for the job to end, as {@link #await} would, without
     * reading back the job it just stored: its end is watched for before it exists.
     */
    public JobService.Submitted submit(Caller caller, Submission submission, String idempotencyKey,
            Duration wait) {
        if (!wait.isPositive()) {
            return intake.submit(caller, submission, idempotencyKey);
        }
        UUID id = UUID.randomUUID();
        WaitDeadline deadline = WaitDeadline.after(WaitDeadline.capped(wait, config.jobs().maxWait()));
        try (JobWatch end = JobWatch.ofEnd(notifications, id); KeyWatch.Watched key = keys.watch(caller, r -> end.wake())) {
            JobService.Submitted submitted = intake.submit(caller, submission, idempotencyKey, id);
            if (!submitted.job().id().equals(id)) {
                // an earlier submission with this idempotency key: wait for that job instead
                Duration left = deadline.left();
                return new JobService.Submitted(left.isZero() ? submitted.job()
                        : await(caller, submitted.job().id(), left), false);
            }
            return new JobService.Submitted(untilEnded(caller, key, end, submitted.job(), deadline), true);
        }
    }

    /**
     * The job's events after {@code afterSeq} as they happen, ending with its {@code result} (the
     * job as JSON): what the REST and UI event streams send. Resuming at or past the result sends
     * the result again, so that every stream ends with one. The caller's tenant is checked before
     * the stream starts.
     */
    public Multi<JobEvents.Event> follow(Caller caller, UUID id, int afterSeq) {
        reads.owned(caller, id);
        int after = afterSeq > 0 ? reads.resumeAfter(caller, id, afterSeq) : 0;
        return Multi.createFrom().emitter(emitter -> {
            JobWatch watch = JobWatch.ofChanges(notifications, id);
            // a client that left is noticed at the next read, not by an interrupt: one would close the
            // database connection under a read (its socket channel), and fail a stream nobody reads
            emitter.onTermination(watch::wake);
            Thread.ofVirtual().name("follow-" + id).start(() -> {
                int[] last = {after};
                try (AutoCloseable counted = metrics.follower(); watch;
                        KeyWatch.Watched key = keys.watch(caller, r -> watch.wake())) {
                    followEvents(caller, key, watch, after, WaitDeadline.NONE, STREAM_RECHECK, JobWatch.Next.AGAIN,
                            new Follower() {
                                @Override
                                public void event(JobEvents.Event event) {
                                    last[0] = event.seq();
                                    emitter.emit(event);
                                }

                                @Override
                                public void ended(JobEvents.Event result, JobView job) {
                                    emitter.emit(new JobEvents.Event(result.seq(), JobEvents.RESULT, views.write(job), result.at()));
                                    emitter.complete();
                                }

                                @Override
                                public boolean keepFollowing() {
                                    return !emitter.isCancelled();
                                }
                            });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (KeyWatch.KeyEnded e) {
                    // numbered as the last event sent, so that a resume (with another key) goes on from there
                    emitter.emit(new JobEvents.Event(last[0], CLOSED, e.getMessage(), Instant.now()));
                    emitter.complete();
                } catch (Exception e) {
                    emitter.fail(e);
                }
            });
        });
    }

    /**
     * A watch of every change of a job, to open before submitting it, so that a follower hears
     * all of it ({@link #follow(Caller, JobWatch, Duration, Duration, Follower)}).
     */
    public JobWatch watch(UUID id) {
        return JobWatch.ofChanges(notifications, id);
    }

    /**
     * Follows a job just submitted under {@code watch} (MCP {@code run_code}): its events from the
     * first go to {@code follower}, read only when told of a change or every {@code recheck}. The
     * job when it ended, or as it is when {@code wait} is up.
     */
    public JobView follow(Caller caller, JobWatch watch, Duration wait, Duration recheck, Follower follower)
            throws InterruptedException {
        try (KeyWatch.Watched key = keys.watch(caller, r -> watch.wake())) {
            return followEvents(caller, key, watch, 0, WaitDeadline.after(wait), recheck, JobWatch.Next.WAIT, follower)
                    .orElseGet(() -> reads.get(caller, watch.id()));
        }
    }

    /** Reads the job at each wake-up until it is terminal or the deadline passes; starts from {@code current} when given. */
    private JobView untilEnded(Caller caller, KeyWatch.Watched key, JobWatch end, JobView current,
            WaitDeadline deadline) {
        AtomicReference<JobView> job = new AtomicReference<>(current);
        JobWatch.Next first = current == null ? JobWatch.Next.AGAIN
                : current.terminal() ? JobWatch.Next.DONE : JobWatch.Next.WAIT;
        try {
            end.until(deadline, config.jobs().poll(), first, () -> {
                key.check();
                job.set(end.endedHere().orElseGet(() -> reads.get(caller, end.id())));
                return job.get().terminal() ? JobWatch.Next.DONE : JobWatch.Next.WAIT;
            });
            return job.get() != null ? job.get() : reads.get(caller, end.id());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return reads.get(caller, end.id());
        }
    }

    /**
     * Reads the job's events after {@code afterSeq} at each change until its result: the job as it
     * ended; empty when the deadline passed first or the follower stopped.
     */
    private Optional<JobView> followEvents(Caller caller, KeyWatch.Watched key, JobWatch watch, int afterSeq,
            WaitDeadline deadline, Duration recheck, JobWatch.Next first, Follower follower) throws InterruptedException {
        int[] seq = {afterSeq};
        AtomicReference<JobView> ended = new AtomicReference<>();
        watch.until(deadline, recheck, first, () -> {
            key.check();
            List<JobEvents.Event> events = reads.events(caller, watch.id(), seq[0]);
            for (JobEvents.Event event : events) {
                seq[0] = event.seq();
                if (event.kind().equals(JobEvents.RESULT)) {
                    JobView job = watch.endedHere().orElseGet(() -> reads.get(caller, watch.id()));
                    follower.ended(event, job);
                    ended.set(job);
                    return JobWatch.Next.DONE;
                }
                follower.event(event);
            }
            if (!follower.keepFollowing()) {
                return JobWatch.Next.DONE;
            }
            // a full page: more may be stored already
            return events.size() < JobEvents.PAGE ? JobWatch.Next.WAIT : JobWatch.Next.AGAIN;
        });
        return Optional.ofNullable(ended.get());
    }
}

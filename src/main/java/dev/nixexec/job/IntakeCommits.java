package dev.nixexec.job;

import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Group commit for intake: submissions that arrive together are stored in one transaction, so the
 * database sees one commit (and the service one transaction) for several jobs. There is no writer
 * thread and no timer: a submitter that finds a writer's place free writes the submissions waiting
 * at that moment, oldest first, up to {@link #MAX_BATCH} and its own among them, so a lone submission
 * is stored at once on its own thread. {@link #WRITERS} batches may be written at the same time.
 *
 * <p>Each submission still runs its own statements, in arrival order, so a later one sees the
 * earlier ones of its batch (the tenant's cap, an idempotency key, the hand-off to a free slot) as
 * if they had committed one by one. A submission refused before it wrote anything is refused alone
 * and the batch goes on; any other failure rolls the batch back and each of its submissions is
 * stored again in a transaction of its own, so one bad submission never costs another its job.
 */
@ApplicationScoped
class IntakeCommits {

    /** At most this many submissions share a commit. */
    static final int MAX_BATCH = 32;
    /** Batches written at once: one per core of this machine's kind keeps both busy. */
    static final int WRITERS = 2;

    /** One submission's work; in its transaction it calls {@code wrote} once it has written anything. */
    @FunctionalInterface
    interface Unit<T> {
        T store(Runnable wrote);
    }

    /** A submission waiting to be stored; its submitter is woken once it is stored or refused. */
    private record Pending<T>(Unit<T> unit, CompletableFuture<T> done, Thread submitter) {
        void succeed(T result) {
            done.complete(result);
            wake();
        }

        void fail(Throwable e) {
            done.completeExceptionally(e);
            wake();
        }

        /** Not the writer's own thread: a permit left on it would cut short its next park, in any code. */
        private void wake() {
            if (submitter != Thread.currentThread()) {
                LockSupport.unpark(submitter);
            }
        }
    }

    /** A submission of a batch failed after it wrote: the batch is rolled back and stored one by one. */
    private static final class StoreAlone extends RuntimeException {
        StoreAlone(Throwable cause) {
            super(cause);
        }
    }

    private final ConcurrentLinkedQueue<Pending<?>> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freePlaces = new AtomicInteger(WRITERS);

    /** Stores one submission, with whatever others wait at the moment; its result, or what it threw. */
    <T> T store(Unit<T> unit) {
        Pending<T> mine = new Pending<>(unit, new CompletableFuture<>(), Thread.currentThread());
        pending.add(mine);
        // once queued, the submission may be stored by another writer: its submitter waits for
        // the answer even when interrupted, so what it answers is what was stored
        boolean interrupted = false;
        while (!mine.done().isDone()) {
            // an empty queue with this submission not done: another writer has it and wakes this
            // submitter when it is stored; taking a place would find nothing to write, again and
            // again (a spin that once kept a carrier from the writer's own virtual thread)
            if (!pending.isEmpty() && takePlace()) {
                try {
                    List<Pending<?>> batch = batch(mine);
                    if (freePlaces.get() > 0) {
                        // more than a batch waits, or a place left while this writer drained woke
                        // the first in line then: the other place need not stay empty meanwhile
                        wakeFirstInLine();
                    }
                    // other submitters' statements run on this thread: an interrupt meant for this
                    // request must not break their connection (it is restored once this one is answered)
                    interrupted |= Thread.interrupted();
                    if (!batch.isEmpty()) {
                        write(batch);
                    }
                } finally {
                    leavePlace();
                }
            } else {
                // woken when this submission is stored, or when a place is left with it first in line
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            return mine.done().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /**
     * The submissions waiting, oldest first, up to {@link #MAX_BATCH}, and the writer's own among
     * them even from behind a full batch: left in line, it would be the one woken when the other
     * place is left, while its submitter is busy writing, and that place would stay empty.
     */
    private List<Pending<?>> batch(Pending<?> mine) {
        List<Pending<?>> batch = new ArrayList<>(MAX_BATCH);
        boolean withMine = false;
        for (Pending<?> p; batch.size() < MAX_BATCH - 1 && (p = pending.poll()) != null; ) {
            batch.add(p);
            withMine |= p == mine;
        }
        Pending<?> last;
        if (!withMine && pending.remove(mine)) {
            batch.add(mine);
        } else if ((last = pending.poll()) != null) {
            batch.add(last);
        }
        return batch;
    }

    private boolean takePlace() {
        for (int free = freePlaces.get(); free > 0; free = freePlaces.get()) {
            if (freePlaces.compareAndSet(free, free - 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Frees a place and wakes the submitter first in line, who takes it if anything still waits (or,
     * if a newcomer took it first, waits for that writer to leave and wake the first in line again).
     * Only that one is woken: waking every waiter made each batch cost a wake-up of every submitter
     * in the queue. A submitter that queues as the place is freed either sees the place free or is
     * behind a first in line that is woken (both sides write, then read, a volatile).
     */
    private void leavePlace() {
        freePlaces.incrementAndGet();
        wakeFirstInLine();
    }

    private void wakeFirstInLine() {
        Pending<?> first = pending.peek();
        if (first != null) {
            LockSupport.unpark(first.submitter());
        }
    }

    private void write(List<Pending<?>> batch) {
        if (batch.size() == 1) {
            storeAlone(batch.getFirst());
            return;
        }
        List<Runnable> outcomes = new ArrayList<>();
        try {
            inNewTransaction(() -> {
                outcomes.clear();
                for (Pending<?> p : batch) {
                    outcomes.add(storeInBatch(p));
                }
                return null;
            });
        } catch (RuntimeException | Error e) {
            // each submission is answered, by its own transaction, whatever broke the batch
            batch.forEach(this::storeAlone);
            return;
        }
        outcomes.forEach(Runnable::run);
    }

    private <T> void storeAlone(Pending<T> p) {
        T result;
        try {
            result = inNewTransaction(() -> p.unit().store(() -> { }));
        } catch (RuntimeException | Error e) {
            p.fail(e);
            return;
        }
        p.succeed(result);
    }

    /** Runs {@code work} in a transaction of its own, committed when it returns (a unit test runs it as it is). */
    <T> T inNewTransaction(Supplier<T> work) {
        return QuarkusTransaction.requiringNew().call(work::get);
    }

    /** Runs one submission in the batch's transaction; answers how to tell its submitter once committed. */
    private static <T> Runnable storeInBatch(Pending<T> p) {
        boolean[] wrote = {false};
        try {
            T result = p.unit().store(() -> wrote[0] = true);
            return () -> p.succeed(result);
        } catch (Refusal | InvalidRequestException e) {
            if (wrote[0]) {
                throw new StoreAlone(e);
            }
            return () -> p.fail(e);
        }
    }
}

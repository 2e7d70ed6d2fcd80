package dev.nixexec.job;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit: items that arrive together are written as one batch, so the database sees one
 * commit for several. There is no writer thread and no timer: a caller that finds a writer's place
 * free writes the items waiting at that moment, oldest first, up to {@code maxBatch} and its own
 * among them, so a lone item is written at once on its own thread; {@code writers} batches may be
 * written at the same time. Intake ({@link IntakeCommits}) and the ends of runs (the worker's
 * {@code ResultWriter}) write through one each.
 */
public final class GroupCommit<T, R> {

    /** Writes one batch and settles each of its items; an item it leaves unsettled fails. */
    @FunctionalInterface
    public interface Writer<T, R> {
        void write(List<Item<T, R>> batch);
    }

    /** An item waiting to be written; its caller is woken once it is settled. */
    public record Item<T, R>(T value, CompletableFuture<R> done, Thread caller) {

        public void succeed(R result) {
            done.complete(result);
            wake();
        }

        public void fail(Throwable e) {
            done.completeExceptionally(e);
            wake();
        }

        /** Not the writer's own thread: a permit left on it would cut short its next park, in any code. */
        private void wake() {
            if (caller != Thread.currentThread()) {
                LockSupport.unpark(caller);
            }
        }
    }

    private final int maxBatch;
    private final Writer<T, R> writer;
    private final ConcurrentLinkedQueue<Item<T, R>> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freePlaces;

    public GroupCommit(int maxBatch, int writers, Writer<T, R> writer) {
        this.maxBatch = maxBatch;
        this.writer = writer;
        this.freePlaces = new AtomicInteger(writers);
    }

    /** Writes {@code value}, with whatever others wait at the moment; its result, or what its write threw. */
    public R write(T value) {
        Item<T, R> mine = new Item<>(value, new CompletableFuture<>(), Thread.currentThread());
        pending.add(mine);
        // once queued, another writer may write it: its caller waits even when interrupted
        boolean interrupted = false;
        while (!mine.done().isDone()) {
            // an empty queue with this item not done: another writer has it and wakes this caller;
            // taking a place to find nothing, again and again, once starved that writer's carrier
            if (!pending.isEmpty() && takePlace()) {
                try {
                    List<Item<T, R>> batch = batch(mine);
                    if (freePlaces.get() > 0) {
                        // more than a batch waits: the other place need not stay empty meanwhile
                        wakeFirstInLine();
                    }
                    // an interrupt meant for this caller must not break the others' connection
                    interrupted |= Thread.interrupted();
                    if (!batch.isEmpty()) {
                        write(batch);
                    }
                } finally {
                    leavePlace();
                }
            } else {
                // woken when this item is written, or when a place is left with it first in line
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

    private void write(List<Item<T, R>> batch) {
        Throwable failure = null;
        try {
            writer.write(batch);
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        for (Item<T, R> item : batch) {
            if (!item.done().isDone()) {
                item.fail(failure != null ? failure : new IllegalStateException("the batch left it unwritten"));
            }
        }
    }

    /**
     * The items waiting, oldest first, up to {@code maxBatch}, and the writer's own even from behind
     * a full batch: left in line, it would be woken for a free place while its caller is busy.
     */
    private List<Item<T, R>> batch(Item<T, R> mine) {
        List<Item<T, R>> batch = new ArrayList<>(maxBatch);
        boolean withMine = false;
        for (Item<T, R> p; batch.size() < maxBatch - 1 && (p = pending.poll()) != null; ) {
            batch.add(p);
            withMine |= p == mine;
        }
        Item<T, R> last;
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
     * Frees a place and wakes only the caller first in line (waking every waiter cost each batch a
     * wake-up of every caller): a caller queueing meanwhile sees the place free or is behind it.
     */
    private void leavePlace() {
        freePlaces.incrementAndGet();
        wakeFirstInLine();
    }

    private void wakeFirstInLine() {
        Item<T, R> first = pending.peek();
        if (first != null) {
            LockSupport.unpark(first.caller());
        }
    }
}

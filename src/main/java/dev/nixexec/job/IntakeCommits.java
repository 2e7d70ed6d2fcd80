package dev.nixexec.job;

import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Group commit for intake ({@link GroupCommit}): submissions that arrive together are stored in one
 * transaction, so the database sees one commit (and the service one transaction) for several jobs;
 * at most {@link #MAX_BATCH} a batch, {@link #WRITERS} batches written at the same time.
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

    /** A submission of a batch failed after it wrote: the batch is rolled back and stored one by one. */
    private static final class StoreAlone extends RuntimeException {
        StoreAlone(Throwable cause) {
            super(cause);
        }
    }

    private final GroupCommit<Unit<?>, Object> commits = new GroupCommit<>(MAX_BATCH, WRITERS, this::write);

    /** Stores one submission, with whatever others wait at the moment; its result, or what it threw. */
    @SuppressWarnings("unchecked")
    <T> T store(Unit<T> unit) {
        return (T) commits.write(unit);
    }

    private void write(List<GroupCommit.Item<Unit<?>, Object>> batch) {
        if (batch.size() == 1) {
            storeAlone(batch.getFirst());
            return;
        }
        List<Runnable> outcomes = new ArrayList<>();
        try {
            inNewTransaction(() -> {
                outcomes.clear();
                for (GroupCommit.Item<Unit<?>, Object> p : batch) {
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

    private void storeAlone(GroupCommit.Item<Unit<?>, Object> p) {
        Object result;
        try {
            result = inNewTransaction(() -> p.value().store(() -> { }));
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
    private static Runnable storeInBatch(GroupCommit.Item<Unit<?>, Object> p) {
        boolean[] wrote = {false};
        try {
            Object result = p.value().store(() -> wrote[0] = true);
            return () -> p.succeed(result);
        } catch (Refusal | InvalidRequestException e) {
            if (wrote[0]) {
                throw new StoreAlone(e);
            }
            return () -> p.fail(e);
        }
    }
}

package dev.nixexec.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Runs an action once the current transaction has committed (at once when there is none; never
 * when it rolls back): for what must follow only a change that happened, such as counting it or
 * telling this node's waiters of it.
 */
@ApplicationScoped
public class AfterCommit {

    private final TransactionSynchronizationRegistry transactions;

    public AfterCommit(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
    }

    public void run(Runnable action) {
        if (transactions.getTransactionKey() == null) {
            action.run();
            return;
        }
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    action.run();
                }
            }
        });
    }
}

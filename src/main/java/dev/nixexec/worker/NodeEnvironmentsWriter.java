package dev.nixexec.worker;

import dev.nixexec.nix.EnvironmentsAhead;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/** Writes this node's environments built ahead to the database after each change of one. */
@ApplicationScoped
class NodeEnvironmentsWriter {

    private static final Logger LOG = Logger.getLogger(NodeEnvironmentsWriter.class);

    private final NodeEnvironments table;
    private final EnvironmentsAhead ahead;
    private final WorkerPool pool;

    NodeEnvironmentsWriter(NodeEnvironments table, EnvironmentsAhead ahead, WorkerPool pool) {
        this.table = table;
        this.ahead = ahead;
        this.pool = pool;
    }

    synchronized void write() {
        try {
            table.write(pool.nodeId(), ahead.progress());
        } catch (RuntimeException e) {
            // the next change writes the whole list again
            LOG.warnf("cannot record this node's environments built ahead: %s", RootMessage.of(e));
        }
    }
}

package dev.nixexec.api;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Whether a failure means the database could not be reached (down, restarting, the pool unable to
 * connect): a condition the caller should retry, not a fault of the request or the service.
 */
final class DatabaseOutage {

    private DatabaseOutage() {
    }

    static boolean causedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.hibernate.exception.JDBCConnectionException
                    || t instanceof SQLTransientConnectionException) {
                return true;
            }
            // SQLSTATE class 08: connection exception; 57P01-57P03: the server is shutting down or starting.
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0"))) {
                return true;
            }
            // The connection pool's own wait for a connection that cannot be made (no SQLSTATE).
            if (t instanceof SQLException sql && sql.getMessage() != null
                    && sql.getMessage().startsWith("Acquisition timeout")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}

package dev.nixexec.api;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Which failures are a database that cannot be reached (503, retry) rather than a fault (500). */
class DatabaseOutageTest {

    @Test
    void connectionFailuresAnywhereInTheChainAreOutages() {
        assertTrue(DatabaseOutage.causedBy(new PersistenceException(new SQLException("refused", "08001"))));
        assertTrue(DatabaseOutage.causedBy(new RuntimeException(new SQLException("terminating connection", "57P01"))));
        assertTrue(DatabaseOutage.causedBy(new RuntimeException(
                new SQLException("Acquisition timeout while waiting for new connection"))));
        assertTrue(DatabaseOutage.causedBy(new org.hibernate.exception.JDBCConnectionException("gone",
                new SQLException("I/O error"))));
    }

    @Test
    void otherFailuresAreNot() {
        assertFalse(DatabaseOutage.causedBy(new RuntimeException("bug")));
        assertFalse(DatabaseOutage.causedBy(new PersistenceException(new SQLException("duplicate key", "23505"))));
        assertFalse(DatabaseOutage.causedBy(new IllegalStateException(new SQLException("no state"))));
    }
}

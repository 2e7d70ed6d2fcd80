package dev.nixexec.logging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The record a client leaving an event stream made (seen in the packaged service's log), and its neighbours. */
class ClientGoneFilterTest {

    private static LogRecord record(String logger, String message, Throwable thrown) {
        LogRecord record = new LogRecord(Level.SEVERE, message);
        record.setLoggerName(logger);
        record.setThrown(thrown);
        return record;
    }

    @Test
    void aWriteToAClientThatLeftIsDropped() {
        ClientGoneFilter filter = new ClientGoneFilter();
        assertFalse(filter.isLoggable(record(ClientGoneFilter.STREAM_WRITER,
                "Exception in SSE server handling, impossible to send it to client: java.io.IOException: Broken pipe", null)));
        assertFalse(filter.isLoggable(record(ClientGoneFilter.STREAM_WRITER, "Exception in SSE server handling",
                new IllegalStateException(new IOException("Connection reset by peer")))));
    }

    @Test
    void anyOtherFailureIsStillLogged() {
        ClientGoneFilter filter = new ClientGoneFilter();
        assertTrue(filter.isLoggable(record(ClientGoneFilter.STREAM_WRITER, "Exception in SSE server handling",
                new IllegalStateException("the database is unreachable"))));
        assertTrue(filter.isLoggable(record("dev.nixexec.job.JobWaits", "java.io.IOException: Broken pipe", null)));
    }
}

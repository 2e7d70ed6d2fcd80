package dev.nixexec.logging;

import io.quarkus.logging.LoggingFilter;
import java.io.IOException;
import java.util.List;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * A client that leaves an event stream early is ordinary, not an ERROR: RESTEasy Reactive logs the
 * next write to the closed connection as "Exception in SSE server handling, impossible to send it to
 * client: java.io.IOException: Broken pipe". Those records, and only those, are dropped
 * ({@code quarkus.log.console.filter}); any other failure of a stream is still logged.
 */
@LoggingFilter(name = "client-gone")
public final class ClientGoneFilter implements Filter {

    static final String STREAM_WRITER = "org.jboss.resteasy.reactive.server.handlers.PublisherResponseHandler";
    private static final List<String> GONE = List.of("Broken pipe", "Connection reset by peer", "Connection was closed");

    @Override
    public boolean isLoggable(LogRecord record) {
        return !(STREAM_WRITER.equals(record.getLoggerName()) && (gone(record.getMessage()) || gone(record.getThrown())));
    }

    private static boolean gone(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof IOException || t.getClass().getName().equals("io.vertx.core.VertxException")) {
                if (gone(t.getMessage())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean gone(String message) {
        return message != null && GONE.stream().anyMatch(message::contains);
    }
}

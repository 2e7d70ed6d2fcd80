package dev.nixexec.config;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/** Stops the embedded PostgreSQL, if this service started one, after everything else has stopped. */
@ApplicationScoped
public class EmbeddedDatabaseShutdown {

    void onStop(@Observes @Priority(Integer.MAX_VALUE) ShutdownEvent event) {
        EmbeddedDatabases.INSTANCE.stopAll();
    }
}

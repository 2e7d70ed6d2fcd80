package dev.nixexec.database;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Stops the embedded PostgreSQL where the JVM outlives the application: tests and dev mode start
 * it again in the same JVM, on the same data directory. A service's JVM exits after the application,
 * and there the database stops after everything else has (EmbeddedPostgresServer's shutdown hook
 * waits for the application): stopped here it went before the workers, the scheduler and Hibernate,
 * whose last statements then failed at ERROR on every graceful stop.
 */
@ApplicationScoped
public class EmbeddedDatabaseShutdown {

    void onStop(@Observes @Priority(Integer.MAX_VALUE) ShutdownEvent event) {
        if (LaunchMode.current() != LaunchMode.NORMAL) {
            EmbeddedDatabases.INSTANCE.stopAll();
        }
    }
}

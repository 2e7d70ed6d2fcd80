package dev.nixexec.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A database test: no application start. One embedded PostgreSQL per test JVM, migrated by Flyway;
 * each test method gets a {@link Database} whose connection runs one transaction, rolled back at
 * the method's end, so tests neither see nor clean up each other's rows.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(DatabaseExtension.class)
@Tag("database")
public @interface DatabaseTest {
}

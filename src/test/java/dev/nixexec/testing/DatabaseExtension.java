package dev.nixexec.testing;

import dev.nixexec.database.EmbeddedDatabases;
import dev.nixexec.database.EmbeddedPostgresForTests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * See {@link DatabaseTest}. The server is the service's own embedded PostgreSQL, with its state in
 * a fresh state directory of this JVM (deleted when the JVM exits): a copy of {@link
 * FreshStateDirs}' template, whose binaries are unpacked and whose schema is migrated from
 * {@code migrations/} as the service migrates it.
 */
final class DatabaseExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DatabaseExtension.class);

    /** Started on first use; lives until the JVM exits. */
    private static final class Shared {
        static final EmbeddedDatabases.Connection SETTINGS = start();

        private static EmbeddedDatabases.Connection start() {
            try {
                Path state = FreshStateDirs.create();
                EmbeddedPostgresForTests.Server server = EmbeddedPostgresForTests.start(state.resolve("postgres"));
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    server.stop().run();
                    FreshStateDirs.remove(state);
                }, "database-tests-stop"));
                return server.connection();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        context.getStore(NAMESPACE).put(Database.class, new Database(Shared.SETTINGS));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Database database = context.getStore(NAMESPACE).remove(Database.class, Database.class);
        if (database != null) {
            database.rollBackAndClose();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Database.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getStore(NAMESPACE).get(Database.class, Database.class);
    }
}

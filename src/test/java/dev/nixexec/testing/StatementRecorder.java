package dev.nixexec.testing;

import io.agroal.api.AgroalDataSource;
import io.quarkus.hibernate.orm.PersistenceUnitExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Every SQL statement Hibernate, or a data source {@link #recording}, prepares on this thread while
 * {@link #during} runs, so a test can
 * count a call's queries (a list is one query, not one per row). Other threads (workers, other
 * requests) are not recorded, so their queries cannot blur the count.
 */
@PersistenceUnitExtension
public class StatementRecorder implements StatementInspector {

    private static final ThreadLocal<List<String>> RECORDING = new ThreadLocal<>();

    @Override
    public String inspect(String sql) {
        List<String> statements = RECORDING.get();
        if (statements != null) {
            statements.add(sql);
        }
        return sql;
    }

    /** The statements {@code call} made on this thread, in order. */
    public static List<String> during(Runnable call) {
        List<String> statements = new ArrayList<>();
        RECORDING.set(statements);
        try {
            call.run();
        } finally {
            RECORDING.remove();
        }
        return statements;
    }

    /** {@code db}, its connections' prepared statements recorded as Hibernate's are. */
    public static AgroalDataSource recording(AgroalDataSource db) {
        return (AgroalDataSource) Proxy.newProxyInstance(StatementRecorder.class.getClassLoader(),
                new Class<?>[] {AgroalDataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, db, args);
                    return result instanceof Connection connection ? recording(connection) : result;
                });
    }

    private static Connection recording(Connection connection) {
        return (Connection) Proxy.newProxyInstance(StatementRecorder.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql) {
                        new StatementRecorder().inspect(sql);
                    }
                    return invoke(method, connection, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}

package dev.nixexec.testing;

import dev.nixexec.database.EmbeddedDatabases;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One test method's database: {@link #connection} is its transaction (rolled back after the
 * method); {@link #dataSource} hands out that same connection, for code that takes a DataSource;
 * {@link #open} is a connection of its own, for a test of several transactions at once, which
 * then cleans up what it commits.
 */
public final class Database {

    private final EmbeddedDatabases.Connection settings;
    private final Connection connection;

    Database(EmbeddedDatabases.Connection settings) throws SQLException {
        this.settings = settings;
        this.connection = open();
        connection.setAutoCommit(false);
    }

    /** The test method's connection: one transaction, rolled back at its end. */
    public Connection connection() {
        return connection;
    }

    /** A DataSource whose every connection is {@link #connection} (closing one leaves it open). */
    public DataSource dataSource() {
        return dataSource(connection);
    }

    /** A new connection to the same database, in autocommit; the caller closes it. */
    public Connection open() throws SQLException {
        return DriverManager.getConnection(settings.url(), settings.user(), settings.password());
    }

    /** A DataSource whose every connection is {@code connection}, which closing leaves open. */
    public static DataSource dataSource(Connection connection) {
        Connection unclosable = (Connection) Proxy.newProxyInstance(Database.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return new DataSource() {
            @Override
            public Connection getConnection() {
                return unclosable;
            }

            @Override
            public Connection getConnection(String username, String password) {
                return unclosable;
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {
            }

            @Override
            public void setLoginTimeout(int seconds) {
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }

            @Override
            public <T> T unwrap(Class<T> type) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> type) {
                return false;
            }
        };
    }

    void rollBackAndClose() throws SQLException {
        try {
            connection.rollback();
        } finally {
            connection.close();
        }
    }
}

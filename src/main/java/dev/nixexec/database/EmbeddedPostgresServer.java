package dev.nixexec.database;

import dev.nixexec.config.StatePaths;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * One embedded PostgreSQL, run from the binaries the zonky library ships but started here, not by
 * the library: the library runs initdb with {@code -A trust}, listens on 127.0.0.1 and checks
 * readiness over TCP, so every local user (and every job allowed onto the host network) would log
 * in as its superuser. Here it listens on no TCP port, only on a Unix socket in a directory only
 * the service can enter; every login needs a password (scram-sha-256) kept in a 0600 file; and the
 * service connects as {@value #OWNER}, which owns the schema but is no superuser (so no
 * {@code COPY ... TO PROGRAM}, no reading the host's files).
 *
 * <p>Layout next to the data directory {@code <state>/postgres}: {@code postgres-binaries/}
 * (0700), {@code postgres-socket/} (0700), {@code postgres.pgpass} (0600, libpq's password-file
 * format, so {@code PGPASSFILE=... psql -h <socket dir>} works for maintenance).
 */
final class EmbeddedPostgresServer {

    /** The role the service connects as: owns the schema public, is no superuser. */
    static final String OWNER = "nixexec";
    static final String SUPERUSER = "postgres";
    static final String DATABASE = "postgres";
    /** Only names the socket file: nothing listens on TCP, and the socket directory is private. */
    static final int PORT = 5432;

    private static final Logger LOG = Logger.getLogger(EmbeddedPostgresServer.class);
    /** The longest the database waits for the application to stop: its jobs' shutdown grace and more. */
    private static final java.time.Duration STOP_WAIT = java.time.Duration.ofMinutes(2);
    /** Longest path the kernel takes for a Unix socket (sun_path less its terminating NUL). */
    private static final int MAX_SOCKET_PATH = 107;
    /** Characters a socket directory may have: it goes into a server option through pg_ctl's shell. */
    private static final Pattern PLAIN_PATH = Pattern.compile("[A-Za-z0-9/._+@=-]+");
    private static final String HBA = """
            # Written by nix-exec at every start of its embedded PostgreSQL; edits are lost.
            # No TCP (listen_addresses is empty); the socket's directory is the service's alone,
            # and every login needs its password (see postgres.pgpass next to the data directory).
            local all all scram-sha-256
            """;

    private final Path dataDir;
    private final Path binariesDir;
    private final Path socketDir;
    private final Path passwordFile;
    private PostgresTools tools;
    private FileChannel lockChannel;
    private FileLock lock;
    private boolean started;

    EmbeddedPostgresServer(Path dataDir) {
        this.dataDir = dataDir;
        this.binariesDir = dataDir.resolveSibling("postgres-binaries");
        this.passwordFile = PostgresPasswords.file(dataDir);
        this.socketDir = socketDir(dataDir);
    }

    /**
     * {@code <state>/postgres-socket}, unless the socket's path would be too long for the kernel or
     * unsafe to pass on: then a directory of its own under the service's private run directory.
     */
    private static Path socketDir(Path dataDir) {
        Path beside = dataDir.resolveSibling("postgres-socket");
        String socket = beside.resolve(".s.PGSQL." + PORT).toString();
        if (socket.length() <= MAX_SOCKET_PATH && PLAIN_PATH.matcher(socket).matches()) {
            return beside;
        }
        return StatePaths.privateRunDir().resolve("postgres-" + HexFormat.of().formatHex(PostgresBinaries.sha256(
                dataDir.toString().getBytes(StandardCharsets.UTF_8)), 0, 8));
    }

    /** The JDBC URL of the socket; user and password are separate settings. */
    String url() {
        return "jdbc:postgresql://localhost/" + DATABASE
                + "?socketFactory=" + socketFactory()
                + "&socketFactoryArg=" + URLEncoder.encode(socketDir.resolve(".s.PGSQL." + PORT).toString(), StandardCharsets.UTF_8)
                + "&sslmode=disable";
    }

    /**
     * {@link UnixSocketFactory}, where the driver can load it: in dev mode the driver is loaded
     * parent-first and sees junixsocket's own factory but not the application's classes, so there
     * the plain junixsocket socket serves (waits on virtual threads may then lag until the next poll).
     */
    private static String socketFactory() {
        try {
            Class.forName(UnixSocketFactory.class.getName(), false, org.postgresql.Driver.class.getClassLoader());
            return UnixSocketFactory.class.getName();
        } catch (ClassNotFoundException e) {
            LOG.warn("the JDBC driver cannot load " + UnixSocketFactory.class.getName()
                    + " (dev mode): using junixsocket's socket factory directly");
            return "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg";
        }
    }

    void start() throws IOException {
        long begun = System.nanoTime();
        Path stateDir = dataDir.getParent();
        StatePaths.createStateDir(stateDir);
        StatePaths.ensurePrivate(stateDir);
        PrivateFiles.directory(dataDir);
        // beside the data directory: initdb wants an empty one
        lockChannel = FileChannel.open(dataDir.resolveSibling("postgres.lock"),
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PrivateFiles.PRIVATE_FILE));
        lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new IOException(dataDir + " is in use by another process");
        }
        try {
            tools = new PostgresTools(PostgresBinaries.unpacked(binariesDir), dataDir);
            Map<String, String> passwords;
            // each written to the file once in force, so a crash in between leaves none that do not work
            if (!Files.exists(dataDir.resolve("postgresql.conf"))) {
                passwords = PostgresPasswords.generate();
                initdb(passwords.get(SUPERUSER));
                PostgresPasswords.save(passwordFile, passwords, socketDir);
            } else {
                if (Files.exists(dataDir.resolve("postmaster.pid"))) {
                    // left running by a service that died (maybe an older one, still on TCP): stop it
                    tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDir.toString(), "stop", "-m", "fast", "-w", "-t", "30"), true);
                }
                passwords = Files.exists(passwordFile) ? PostgresPasswords.read(passwordFile) : Map.of();
                if (!passwords.containsKey(SUPERUSER) || !passwords.containsKey(OWNER)) {
                    // made by an older version (trust, no passwords) or its password file is gone
                    passwords = PostgresPasswords.generate();
                    tools.setSuperuserPassword(passwords.get(SUPERUSER));
                    PostgresPasswords.save(passwordFile, passwords, socketDir);
                }
            }
            Files.writeString(dataDir.resolve("pg_hba.conf"), HBA);
            if (!socketDir.getParent().equals(stateDir)) {
                StatePaths.ensurePrivate(socketDir.getParent());
            }
            PrivateFiles.directory(socketDir);
            tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDir.toString(), "-w", "-t", "120", "-o", serverOptions(), "start"), false);
            started = true;
            // JVM shutdown hooks run at once and side by side: this one would stop the database under
            // Quarkus's own (jobs ending, the scheduler, Hibernate), so it waits for the application to stop
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                afterTheApplication();
                stop();
            }, "embedded-postgres-stop"));
            prepareOwner(passwords);
            LOG.infof("embedded PostgreSQL started in %d ms: data in %s, socket in %s, no TCP",
                    (System.nanoTime() - begun) / 1_000_000, dataDir, socketDir);
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
    }

    /**
     * Waits until the running application has stopped, at most {@link #STOP_WAIT} (a shutdown that
     * hangs must not keep the database, and so the JVM, alive for ever).
     */
    private static void afterTheApplication() {
        io.quarkus.runtime.Application application = io.quarkus.runtime.Application.currentApplication();
        if (application == null) {
            return;
        }
        Thread waiting = Thread.ofVirtual().start(() -> {
            try {
                application.awaitShutdown();
            } catch (IllegalStateException interrupted) {
                // the join below decides
            }
        });
        try {
            waiting.join(STOP_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    synchronized void stop() {
        if (started) {
            started = false;
            try {
                tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDir.toString(), "stop", "-m", "fast", "-w", "-t", "30"), false);
            } catch (IOException | RuntimeException e) {
                LOG.warnf("stopping the embedded PostgreSQL in %s: %s", dataDir, e.getMessage());
            }
        }
        try {
            if (lock != null) {
                lock.release();
                lock = null;
            }
            if (lockChannel != null) {
                lockChannel.close();
                lockChannel = null;
            }
        } catch (IOException e) {
            LOG.warnf("releasing the lock of %s: %s", dataDir, e.getMessage());
        }
    }

    private String serverOptions() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("listen_addresses", "");
        settings.put("port", Integer.toString(PORT));
        settings.put("unix_socket_directories", socketDir.toString());
        settings.put("unix_socket_permissions", "0700");
        // as the embedded library ran it: an accepted job must survive a crash (its default is off)
        settings.put("synchronous_commit", "on");
        settings.put("timezone", "UTC");
        settings.put("max_connections", "300");
        // fsync off (-F), as the library ran it: a crash of the service or of PostgreSQL loses
        // nothing committed, a crash of the host may
        StringBuilder options = new StringBuilder("-F");
        // pg_ctl hands the options to a shell
        settings.forEach((name, value) -> options.append(" -c '").append(name).append('=')
                .append(value.replace("'", "'\\''")).append('\''));
        return options.toString();
    }

    private void initdb(String superuserPassword) throws IOException {
        Path pwfile = dataDir.resolveSibling(".postgres-initdb-" + UUID.randomUUID());
        PrivateFiles.newFile(pwfile, superuserPassword + "\n");
        try {
            tools.run(List.of(tools.bin("initdb"), "-D", dataDir.toString(), "-U", SUPERUSER, "-E", "UTF-8",
                    "--auth=scram-sha-256", "--pwfile=" + pwfile), false);
        } finally {
            Files.deleteIfExists(pwfile);
        }
    }

    /**
     * Creates the owner role (or brings it in line) and gives it the schema and what an older
     * version made in it as the superuser, so Flyway, now running as the owner, carries on.
     */
    private void prepareOwner(Map<String, String> passwords) throws IOException {
        Properties props = new Properties();
        props.setProperty("user", SUPERUSER);
        props.setProperty("password", passwords.get(SUPERUSER));
        try (Connection c = new org.postgresql.Driver().connect(url(), props); Statement s = c.createStatement()) {
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + OWNER + "') THEN CREATE ROLE "
                    + OWNER + "; END IF; END $$");
            // generated by this class: base64url characters only
            s.execute("ALTER ROLE " + OWNER + " WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
                    + " PASSWORD '" + passwords.get(OWNER) + "'");
            s.execute("ALTER SCHEMA public OWNER TO " + OWNER);
            // tables (their indexes and serial sequences follow), views, standalone sequences
            s.execute("""
                    DO $$ DECLARE r record; BEGIN
                      FOR r IN SELECT c.oid::regclass AS rel, c.relkind FROM pg_class c
                               WHERE c.relnamespace = 'public'::regnamespace AND c.relowner <> '%1$s'::regrole
                                 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                      LOOP
                        EXECUTE format('ALTER %%s %%s OWNER TO %1$s', CASE r.relkind WHEN 'v' THEN 'VIEW'
                          WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, r.rel);
                      END LOOP;
                      FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c
                               WHERE c.relnamespace = 'public'::regnamespace AND c.relowner <> '%1$s'::regrole
                                 AND c.relkind = 'S'
                      LOOP
                        EXECUTE format('ALTER SEQUENCE %%s OWNER TO %1$s', r.rel);
                      END LOOP;
                    END $$""".formatted(OWNER));
        } catch (SQLException e) {
            throw new IOException("preparing the role " + OWNER + " in the embedded PostgreSQL: " + e.getMessage(), e);
        }
    }
}

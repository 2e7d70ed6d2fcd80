package dev.nixexec.config;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jboss.logging.Logger;
import org.tukaani.xz.XZInputStream;

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
    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
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
    private Path pgHome;
    private FileChannel lockChannel;
    private FileLock lock;
    private boolean started;

    EmbeddedPostgresServer(Path dataDir) {
        this.dataDir = dataDir;
        this.binariesDir = dataDir.resolveSibling("postgres-binaries");
        this.passwordFile = dataDir.resolveSibling("postgres.pgpass");
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
        return StatePaths.privateRunDir().resolve("postgres-" + HexFormat.of().formatHex(sha256(
                dataDir.toString().getBytes(StandardCharsets.UTF_8)), 0, 8));
    }

    Path socketDir() {
        return socketDir;
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

    /** The password of a role, from the password file (read each time: several class loaders share it). */
    static String password(Path dataDir, String role) {
        try {
            String password = readPasswords(dataDir.resolveSibling("postgres.pgpass")).get(role);
            if (password == null) {
                throw new IOException("no password for " + role + " in " + dataDir.resolveSibling("postgres.pgpass"));
            }
            return password;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void start() throws IOException {
        long begun = System.nanoTime();
        Path stateDir = dataDir.getParent();
        StatePaths.createStateDir(stateDir);
        StatePaths.ensurePrivate(stateDir);
        privateDir(dataDir);
        // beside the data directory: initdb wants an empty one
        lockChannel = FileChannel.open(dataDir.resolveSibling("postgres.lock"),
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PRIVATE_FILE));
        lock = lockChannel.tryLock();
        if (lock == null) {
            lockChannel.close();
            throw new IOException(dataDir + " is in use by another process");
        }
        try {
            pgHome = binaries();
            Map<String, String> passwords;
            // each written to the file once in force, so a crash in between leaves none that do not work
            if (!Files.exists(dataDir.resolve("postgresql.conf"))) {
                passwords = newPasswords();
                initdb(passwords.get(SUPERUSER));
                savePasswords(passwords);
            } else {
                if (Files.exists(dataDir.resolve("postmaster.pid"))) {
                    // left running by a service that died (maybe an older one, still on TCP): stop it
                    run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "stop", "-m", "fast", "-w", "-t", "30"), true);
                }
                passwords = Files.exists(passwordFile) ? readPasswords(passwordFile) : Map.of();
                if (!passwords.containsKey(SUPERUSER) || !passwords.containsKey(OWNER)) {
                    // made by an older version (trust, no passwords) or its password file is gone
                    passwords = newPasswords();
                    setSuperuserPassword(passwords.get(SUPERUSER));
                    savePasswords(passwords);
                }
            }
            Files.writeString(dataDir.resolve("pg_hba.conf"), HBA);
            if (!socketDir.getParent().equals(stateDir)) {
                StatePaths.ensurePrivate(socketDir.getParent());
            }
            privateDir(socketDir);
            run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "-w", "-t", "120", "-o", serverOptions(), "start"), false);
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
                run(List.of(bin("pg_ctl"), "-D", dataDir.toString(), "stop", "-m", "fast", "-w", "-t", "30"), false);
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
        Files.writeString(Files.createFile(pwfile, PosixFilePermissions.asFileAttribute(PRIVATE_FILE)), superuserPassword + "\n");
        try {
            run(List.of(bin("initdb"), "-D", dataDir.toString(), "-U", SUPERUSER, "-E", "UTF-8",
                    "--auth=scram-sha-256", "--pwfile=" + pwfile), false);
        } finally {
            Files.deleteIfExists(pwfile);
        }
    }

    /** Single-user mode: no listener, no login; the only way in to a cluster that trusted everyone. */
    private void setSuperuserPassword(String password) throws IOException {
        List<String> argv = command(List.of(bin("postgres"), "--single", "-D", dataDir.toString(), DATABASE));
        Process single = new ProcessBuilder(argv).redirectErrorStream(true).start();
        single.getOutputStream().write(("ALTER ROLE " + SUPERUSER + " WITH PASSWORD '" + password + "'\n")
                .getBytes(StandardCharsets.UTF_8));
        single.getOutputStream().close();
        String output = new String(single.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (single.waitFor() != 0 || output.contains("ERROR:") || output.contains("FATAL:")) {
                throw new IOException("setting the superuser's password in " + dataDir + " failed: " + output.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        LOG.infof("embedded PostgreSQL in %s: set passwords (it trusted every local login before)", dataDir);
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

    private static Map<String, String> newPasswords() {
        Map<String, String> passwords = new LinkedHashMap<>();
        SecureRandom random = new SecureRandom();
        for (String role : List.of(SUPERUSER, OWNER)) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            passwords.put(role, Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
        }
        return passwords;
    }

    private void savePasswords(Map<String, String> passwords) throws IOException {
        StringBuilder file = new StringBuilder("""
                # Passwords of the embedded PostgreSQL of nix-exec (libpq password file). Maintenance, as the service's user:
                #   PGPASSFILE=%s psql -h %s -U %s %s
                """.formatted(passwordFile, socketDir, OWNER, DATABASE));
        passwords.forEach((role, password) -> file.append("*:*:*:").append(role).append(':').append(password).append('\n'));
        Path tmp = passwordFile.resolveSibling(".postgres.pgpass-" + UUID.randomUUID());
        Files.writeString(Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PRIVATE_FILE)), file);
        Files.move(tmp, passwordFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Map<String, String> readPasswords(Path file) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile() || !attributes.owner().getName().equals(System.getProperty("user.name"))) {
            throw new IOException(file + " must be a file of " + System.getProperty("user.name"));
        }
        if (!attributes.permissions().equals(PRIVATE_FILE)) {
            Files.setPosixFilePermissions(file, PRIVATE_FILE);
        }
        Map<String, String> passwords = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] fields = line.split(":", 5);
            if (!line.startsWith("#") && fields.length == 5) {
                passwords.put(fields[3], fields[4]);
            }
        }
        return passwords;
    }

    /** Creates the directory 0700 or makes an existing one (a real directory of this service) so. */
    private static void privateDir(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            } catch (FileAlreadyExistsException raced) {
                // checked below
            }
        }
        PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory() || !attributes.owner().getName().equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " must be a directory of " + System.getProperty("user.name"));
        }
        if (!attributes.permissions().equals(PRIVATE_DIR)) {
            Files.setPosixFilePermissions(dir, PRIVATE_DIR);
        }
    }

    /**
     * The binaries, unpacked once per archive into {@code postgres-binaries/<sha-256>}. A
     * directory others could write to (the library made it 0777) may hold anything: it is
     * emptied, not reused.
     */
    private Path binaries() throws IOException {
        if (Files.isDirectory(binariesDir, LinkOption.NOFOLLOW_LINKS)) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(binariesDir, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                LOG.warnf("%s was writable by others; unpacking the PostgreSQL binaries again", binariesDir);
                Path aside = binariesDir.resolveSibling(".postgres-binaries-untrusted-" + UUID.randomUUID());
                Files.move(binariesDir, aside, StandardCopyOption.ATOMIC_MOVE);
                deleteTree(aside);
            }
        }
        privateDir(binariesDir);
        byte[] archive;
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(os(), architecture())) {
            archive = in.readAllBytes();
        }
        Path home = binariesDir.resolve(HexFormat.of().formatHex(sha256(archive), 0, 16));
        if (!Files.exists(home.resolve(".complete"))) {
            Path unpacking = Files.createTempDirectory(binariesDir, ".unpacking-");
            try {
                unpack(archive, unpacking);
                Files.createFile(unpacking.resolve(".complete"));
                deleteTree(home);
                Files.move(unpacking, home, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                deleteTree(unpacking);
            }
        }
        try (Stream<Path> others = Files.list(binariesDir)) {
            for (Path other : others.filter(p -> !p.equals(home)).toList()) {
                deleteTree(other);
            }
        }
        return home;
    }

    private static void unpack(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("archive entry outside its directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink() || entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                    continue;
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path);
                }
                // never writable by group or others, whatever the archive says
                Files.setPosixFilePermissions(path, modeOf(entry.getMode() & 0755 | 0600));
            }
        }
    }

    /** Deletes a tree without following links (a walk does not follow them). */
    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static Set<PosixFilePermission> modeOf(int mode) {
        String bits = "rwxrwxrwx";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            s.append((mode & (1 << (8 - i))) != 0 ? bits.charAt(i) : '-');
        }
        return PosixFilePermissions.fromString(s.toString());
    }

    private String bin(String name) {
        return pgHome.resolve("bin").resolve(name).toString();
    }

    /**
     * PostgreSQL refuses to run as root. As the library does, a root service runs it through
     * {@code unshare -U}: in a user namespace of its own it is no root (and has no capabilities on
     * the host), while its files stay the service's.
     */
    private static List<String> command(List<String> argv) {
        if (!LinuxUtils.isUnshareAvailable()) {
            return argv;
        }
        List<String> wrapped = new ArrayList<>(List.of("unshare", "-U"));
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Runs a PostgreSQL tool, its output to the log; a failure throws unless tolerated. */
    private void run(List<String> argv, boolean mayFail) throws IOException {
        Process process = new ProcessBuilder(command(argv)).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String tool = Path.of(argv.getFirst()).getFileName().toString();
        // the postmaster inherits pg_ctl's output, so this reads on until the server stops
        Thread.ofVirtual().name("embedded-postgres-output").start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    LOG.infof("%s: %s", tool, line);
                }
            } catch (IOException e) {
                // the process is gone
            }
        });
        int exit;
        try {
            exit = process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + tool, e);
        }
        if (exit != 0 && !mayFail) {
            throw new IOException(tool + " failed (exit " + exit + ") for " + dataDir + "; its output is in the log");
        }
    }

    private static String os() {
        String name = System.getProperty("os.name");
        return name.startsWith("Mac") ? "Darwin" : name.startsWith("Windows") ? "Windows" : "Linux";
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch");
        return "amd64".equals(arch) ? "x86_64" : arch;
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

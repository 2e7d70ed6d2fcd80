package dev.nixexec.database;

import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/** The PostgreSQL programs of one unpacked set of binaries, run on one data directory, their output to the log. */
final class PostgresTools {

    /** The server's category: what its programs print is the server's log. */
    private static final Logger LOG = Logger.getLogger(EmbeddedPostgresServer.class);

    private final Path home;
    private final Path dataDir;

    PostgresTools(Path home, Path dataDir) {
        this.home = home;
        this.dataDir = dataDir;
    }

    String bin(String name) {
        return home.resolve("bin").resolve(name).toString();
    }

    /** Single-user mode: no listener, no login; the only way in to a cluster that trusted everyone. */
    void setSuperuserPassword(String password) throws IOException {
        List<String> argv = command(List.of(bin("postgres"), "--single", "-D", dataDir.toString(), EmbeddedPostgresServer.DATABASE));
        Process single = new ProcessBuilder(argv).redirectErrorStream(true).start();
        single.getOutputStream().write(("ALTER ROLE " + EmbeddedPostgresServer.SUPERUSER + " WITH PASSWORD '" + password + "'\n")
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
    void run(List<String> argv, boolean mayFail) throws IOException {
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
}

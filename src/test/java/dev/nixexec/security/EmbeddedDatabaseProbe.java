package dev.nixexec.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What a local attacker learns and tries against a running embedded PostgreSQL: its postmaster.pid
 * (port, socket directory), the TCP ports its postmaster listens on (from /proc, not by scanning
 * the host), a password-less login over TCP, and the Unix socket as another OS user.
 */
final class EmbeddedDatabaseProbe {

    private EmbeddedDatabaseProbe() {
    }

    /** postmaster.pid: pid, data dir, start time, port, socket directory, listen address, ... */
    record Postmaster(long pid, int port, String socketDir, String listen) {
        static Postmaster of(Path dataDir) throws IOException {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            return new Postmaster(Long.parseLong(lines.get(0).trim()), Integer.parseInt(lines.get(3).trim()),
                    lines.get(4).trim(), lines.get(5).trim());
        }

        Path socket() {
            return Path.of(socketDir, ".s.PGSQL." + port);
        }
    }

    /** The TCP ports the process listens on: its socket inodes matched with /proc/net/tcp{,6} LISTEN rows. */
    static Set<Integer> tcpListenPorts(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException gone) {
                    // closed meanwhile
                }
            }
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> rows = Files.readAllLines(file);
            for (String row : rows.subList(1, rows.size())) {
                String[] f = row.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) {
                    ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }

    /** A login over TCP on 127.0.0.1 with no password: the SQL error if refused, empty if it got in. */
    static Optional<String> passwordlessTcpLogin(int port, String user) {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("connectTimeout", "5");
        props.setProperty("sslmode", "disable");
        try (var c = new org.postgresql.Driver().connect("jdbc:postgresql://127.0.0.1:" + port + "/postgres", props)) {
            return Optional.empty();
        } catch (SQLException refused) {
            return Optional.of(refused.getMessage());
        }
    }

    /** Connects to the Unix socket as uid/gid 65534 (nobody); prints "connected" or why not. */
    static String connectAsNobody(Path socket) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                "perl", "-MSocket", "-e",
                "socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\\n\";"
                        + " connect($s, pack_sockaddr_un($ARGV[0])) or do { print \"refused: $!\\n\"; exit 0 };"
                        + " print \"connected\\n\";",
                socket.toString()));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return out;
    }
}

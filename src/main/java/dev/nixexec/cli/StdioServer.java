package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.Quarkus;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code nix-exec} with no command, as MCP clients start it ({@code {"command": "nix-exec",
 * "args": [...]}}): an MCP server on stdin and stdout, relayed ({@link McpRelay}) to a service's
 * {@code /mcp}. With {@code --server} or {@code NIXEXEC_SERVER} that is the team's server, with {@code --key} or
 * {@code NIXEXEC_KEY}.
 * Without, it is a local-mode service on this machine, one per state directory: the first
 * nix-exec on it runs the service in its own process, on 127.0.0.1 and a free port, and writes
 * the port and a random secret the service requires of every request to a file only this user
 * can read; every later one relays to that. When the one running it exits, the next request of
 * another finds the service gone, and that one runs its own.
 */
final class StdioServer {

    /** The running service's port and secret (0600), in the state directory. */
    static final String ENDPOINT_FILE = "stdio-service.json";
    /** Held by the process running the service, for its life: who runs it is decided by the kernel's lock. */
    static final String LOCK_FILE = "stdio-service.lock";

    private static final long START_SECONDS = 300;

    private final Map<String, String> settings;
    private final java.util.List<String> flags;
    private final Path stateDir;
    private final Consumer<String> log;
    private FileChannel held;
    private Thread service;

    private StdioServer(Map<String, String> settings, java.util.List<String> flags, Path stateDir, Consumer<String> log) {
        this.settings = settings;
        this.flags = flags;
        this.stateDir = stateDir;
        this.log = log;
    }

    /**
     * Serves MCP on stdin/stdout until stdin ends. {@code settings} are the flags' properties,
     * {@code flags} the flags given, {@code file} what the YAML file sets (for the state directory).
     */
    static int run(Map<String, String> settings, Map<String, String> file, java.util.List<String> flags,
            ClientOptions upstream) throws InterruptedException {
        // stdout is the protocol's alone: whatever else would print there (the framework) goes to stderr
        OutputStream protocol = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        Consumer<String> log = line -> System.err.println("nix-exec: " + Printable.line(line));
        // --server and --key before no command name the team's server as they do for every client command
        String source = upstream.server != null ? "--server" : "NIXEXEC_SERVER";
        String server = upstream.server != null ? upstream.server : System.getenv("NIXEXEC_SERVER");
        if (server != null && !server.isBlank()) {
            if (!flags.isEmpty()) {
                log.accept("relaying to " + server + " (" + source + "): the service's flags are that server's to set, "
                        + "ignored here: " + String.join(" ", flags));
            }
            McpRelay.Upstream team = new McpRelay.Upstream(mcpUri(server, source),
                    Optional.ofNullable(upstream.key).or(() -> Optional.ofNullable(System.getenv("NIXEXEC_KEY")))
                            .filter(key -> !key.isBlank()));
            return new McpRelay(team, lost -> Optional.empty(), log).run(System.in, protocol);
        }
        StdioServer local = new StdioServer(settings, flags, stateDir(settings, file, System.getenv()), log);
        int code = new McpRelay(local.connect(), local::reconnect, log).run(System.in, protocol);
        local.stop();
        return code;
    }

    /** Stops the service this process runs, if it runs one, as the service stops on SIGTERM. */
    private void stop() throws InterruptedException {
        if (service != null) {
            Quarkus.asyncExit(Exit.OK.code);
            service.join();
        }
    }

    static URI mcpUri(String server, String source) {
        String base = server.strip().replaceAll("/+$", "");
        try {
            return URI.create(base.endsWith("/mcp") ? base : base + "/mcp");
        } catch (IllegalArgumentException e) {
            throw new CommandFailure(Exit.USAGE, source + ": '" + server + "' is not a URL");
        }
    }

    /**
     * The state directory: a flag, a system property, {@code NIXEXEC_STATE_DIR}, the YAML file's
     * {@code state_dir}, else {@code $XDG_STATE_HOME/nix-exec} ({@code ~/.local/state/nix-exec}).
     */
    static Path stateDir(Map<String, String> settings, Map<String, String> file, Map<String, String> env) {
        String name = "nixexec.state-dir";
        String configured = settings.getOrDefault(name, System.getProperty(name, env.getOrDefault("NIXEXEC_STATE_DIR", file.get(name))));
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        String xdg = env.get("XDG_STATE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "state");
        return base.resolve("nix-exec").toAbsolutePath();
    }

    private Optional<McpRelay.Upstream> reconnect(McpRelay.Upstream lost) {
        log.accept("the service at " + lost.mcp() + " stopped; finding or starting another on " + stateDir);
        try {
            return Optional.of(connect());
        } catch (CommandFailure | InterruptedException e) {
            log.accept(e.getMessage());
            return Optional.empty();
        }
    }

    /** The service on this state directory: the running one, or one this process starts. */
    private McpRelay.Upstream connect() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        boolean said = false;
        while (true) {
            Optional<McpRelay.Upstream> running = running();
            if (running.isPresent()) {
                if (held == null && !flags.isEmpty()) {
                    log.accept("relaying to the service another nix-exec runs on " + stateDir
                            + ", as that one configured it: this one's flags are not applied: " + String.join(" ", flags));
                }
                return running.get();
            }
            if (held == null && lock()) {
                return start();
            }
            if (!said) {
                log.accept("waiting for the service another nix-exec is starting on " + stateDir);
                said = true;
            }
            if (System.nanoTime() > deadline) {
                throw new CommandFailure(Exit.UNREACHABLE, "the service another nix-exec runs on " + stateDir
                        + " did not answer in " + START_SECONDS + " s");
            }
            Thread.sleep(200);
        }
    }

    /** The service the endpoint file names, if it answers with that secret. */
    private Optional<McpRelay.Upstream> running() {
        Path file = stateDir.resolve(ENDPOINT_FILE);
        JsonNode endpoint;
        try {
            endpoint = Server.JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            return Optional.empty();
        }
        int port = endpoint.path("port").asInt(0);
        String secret = endpoint.path("secret").asText("");
        if (port <= 0 || secret.isEmpty() || !answers(port, secret)) {
            return Optional.empty();
        }
        return Optional.of(upstream(port, secret));
    }

    private static McpRelay.Upstream upstream(int port, String secret) {
        return new McpRelay.Upstream(URI.create("http://127.0.0.1:" + port + "/mcp"), Optional.of(secret));
    }

    private static boolean answers(int port, String secret) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/q/health/live")
                    .toURL().openConnection();
            connection.setConnectTimeout(2_000);
            connection.setReadTimeout(10_000);
            connection.setRequestProperty("Authorization", "Bearer " + secret);
            int status = connection.getResponseCode();
            connection.disconnect();
            return status == 200;
        } catch (IOException e) {
            return false;
        }
    }

    private boolean lock() {
        try {
            if (!Files.exists(stateDir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(stateDir.getParent());
                try {
                    Files.createDirectory(stateDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another nix-exec made it first
                }
            }
            FileChannel channel = FileChannel.open(stateDir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            held = channel;
            return true;
        } catch (IOException e) {
            throw new CommandFailure(Exit.CONFIG, "the state directory " + stateDir + " cannot be used: " + e.getMessage());
        }
    }

    /** Starts the service in this process (local mode, loopback, a free port, a new secret) and waits until it answers. */
    private McpRelay.Upstream start() throws InterruptedException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        int port = freeLoopbackPort();
        Map<String, String> properties = new LinkedHashMap<>(settings);
        properties.put("nixexec.state-dir", stateDir.toString());
        properties.put("nixexec.auth.enabled", "false");
        properties.put("nixexec.auth.local-mode-secret", secret);
        properties.put("quarkus.http.host", "127.0.0.1");
        properties.put("quarkus.http.port", Integer.toString(port));
        properties.put("quarkus.log.console.stderr", "true");
        properties.forEach(System::setProperty);
        log.accept("starting the service on " + stateDir + " (local mode, 127.0.0.1:" + port + ")");
        // Quarkus.run returns when the service stops, and on a failed start exits the process with its error on stderr
        service = Thread.ofPlatform().name("nix-exec-service").start(() -> Quarkus.run());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (!answers(port, secret)) {
            if (!service.isAlive() || System.nanoTime() > deadline) {
                throw new CommandFailure(Exit.SERVER_ERROR, "the service did not start on " + stateDir);
            }
            Thread.sleep(50);
        }
        publish(port, secret);
        return upstream(port, secret);
    }

    /** Writes the endpoint file whole (a temporary file moved over it), readable by this user alone. */
    private void publish(int port, String secret) {
        try {
            Path temporary = Files.createTempFile(stateDir, ".stdio-service", ".json",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temporary, Server.JSON.createObjectNode().put("port", port).put("secret", secret)
                    .put("pid", ProcessHandle.current().pid()).toString());
            Files.move(temporary, stateDir.resolve(ENDPOINT_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + stateDir.resolve(ENDPOINT_FILE), e);
        }
    }

    private static int freeLoopbackPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

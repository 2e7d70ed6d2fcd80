package dev.nixexec.cli;

import java.io.PrintStream;
import java.net.URI;
import java.util.Optional;
import picocli.CommandLine.Option;

/** What every client command takes: where the server is, the key, and whether to answer in JSON. */
final class ClientOptions {

    static final String DEFAULT_SERVER = "http://127.0.0.1:8080";

    @Option(names = "--server", paramLabel = "URL",
            description = "the nix-exec server (default: $NIXEXEC_SERVER, else " + DEFAULT_SERVER + ")")
    String server;

    @Option(names = "--key", paramLabel = "KEY",
            description = "the API key (default: $NIXEXEC_KEY; prefer the variable: arguments are visible to other users)")
    String key;

    @Option(names = "--json", description = "answer in JSON; streams as NDJSON, one event a line")
    boolean json;

    /**
     * Takes what was given before the command's name ({@code nix-exec --json --server URL list}, as
     * docker, kubectl and gh take it) where this command's own options gave nothing.
     */
    void inherit(ClientOptions global) {
        if (server == null) {
            server = global.server;
        }
        if (key == null) {
            key = global.key;
        }
        json = json || global.json;
    }

    Server connect() {
        String url = Optional.ofNullable(server).or(() -> env("NIXEXEC_SERVER")).orElse(DEFAULT_SERVER);
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new CommandFailure(Exit.USAGE, "--server: '" + url + "' is not a URL");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new CommandFailure(Exit.USAGE, "--server: '" + url + "' is not an http:// or https:// URL");
        }
        return new Server(uri, Optional.ofNullable(key).or(() -> env("NIXEXEC_KEY")));
    }

    private static Optional<String> env(String name) {
        return Optional.ofNullable(System.getenv(name)).filter(v -> !v.isBlank());
    }

    /** Prints a JSON answer on one line. */
    static void printJson(PrintStream out, Object value) {
        out.println(Printable.json(new String(Server.write(value), java.nio.charset.StandardCharsets.UTF_8)));
        out.flush();
    }
}

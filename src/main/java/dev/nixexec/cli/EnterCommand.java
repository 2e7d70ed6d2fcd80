package dev.nixexec.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The session's interactive shell over {@code GET /v1/sessions/{id}/attach} (docs/api.md,
 * "Attaching a shell"). On a terminal it puts the terminal in raw mode and keeps the remote
 * window size in step with it; from a pipe it sends the input and then an end of input, so the
 * shell exits when its script is done. With {@code --json} the terminal is left as it is, the
 * input is sent as from a pipe, and the shell is written as NDJSON ({@link ShellOutput.Events}).
 * The command's exit code is the shell's.
 */
@Command(name = "enter", mixinStandardHelpOptions = true, description = "Open the session's interactive shell (a real terminal; stdin may be a pipe; NDJSON events with --json).",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} enter work", "  printf 'make test\\n' | ${ROOT-COMMAND-NAME} enter work"})
final class EnterCommand extends ClientCommand {

    // RFC 6455: the connection ended without a close frame
    private static final int ABNORMAL_CLOSURE = 1006;

    @Parameters(index = "0", paramLabel = "SESSION", description = "the session's id or name")
    String session;

    @Override
    int run(Server server) {
        String id = server.get("/v1/sessions/" + Server.segment(session)).path("id").asText();
        CompletableFuture<ShellClosed> closed = new CompletableFuture<>();
        ShellOutput output = ShellOutput.of(client.json, terminal.out());
        ShellInput shell = new ShellInput(open(server, id, closed, output));
        ShellClosed end;
        try (TerminalMode mode = client.json ? TerminalMode.unchanged() : TerminalMode.raw()) {
            if (mode.interactive()) {
                mode.onResize(size -> resize(shell, size));
                resize(shell, mode.size());
            }
            Thread input = Thread.ofPlatform().daemon().name("enter-input")
                    .start(() -> pump(shell, mode.interactive(), closed));
            end = await(closed);
            input.interrupt();
        }
        // the terminal is itself again: a raw one would print the last line without its carriage return
        output.ended(end);
        return exit(end);
    }

    private WebSocket open(Server server, String id, CompletableFuture<ShellClosed> closed, ShellOutput output) {
        URI http = server.resolve("/v1/sessions/" + Server.segment(id) + "/attach");
        URI ws = URI.create(http.toString().replaceFirst("^http", "ws"));
        // the JDK's WebSocket client: for enter only, its TLS set-up costs the other commands nothing
        WebSocket.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().newWebSocketBuilder();
        server.key().ifPresent(k -> builder.header("Authorization", "Bearer " + k));
        try {
            return builder.buildAsync(ws, new Shell(closed, output)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure(Exit.CANCELLED, "interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                HttpResponse<?> response = refused.getResponse();
                Object body = response.body();
                throw Server.refusal(response.statusCode(), body instanceof String text ? text
                        : body instanceof byte[] bytes ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : "");
            }
            throw new CommandFailure(Exit.UNREACHABLE, "cannot open a shell on " + server.base + ": " + e.getCause().getMessage());
        }
    }

    /**
     * Keystrokes (or the pipe) to the shell, then, from a pipe, the end of input: Ctrl-D, again
     * each second until the shell has gone. One is not enough: a Ctrl-D that reaches the terminal
     * before the shell's line editor has started is read as a NUL, not as the end of input.
     */
    private void pump(ShellInput shell, boolean interactive, CompletableFuture<ShellClosed> closed) {
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = terminal.in().read(buffer)) >= 0) {
                if (n > 0) {
                    shell.keys(buffer, n);
                }
            }
            while (!interactive && !closed.isDone()) {
                shell.endOfInput();
                closed.copy().completeOnTimeout(null, 1, TimeUnit.SECONDS).join();
            }
        } catch (IOException | CompletionException e) {
            // the connection ended: the close code tells the rest
        }
    }

    private static void resize(ShellInput shell, TerminalMode.Size size) {
        try {
            shell.resize(size);
        } catch (CompletionException e) {
            // the connection ended: the close code tells the rest
        }
    }

    private static ShellClosed await(CompletableFuture<ShellClosed> closed) {
        try {
            return closed.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure(Exit.CANCELLED, "interrupted");
        } catch (ExecutionException e) {
            // the listener completes it, never exceptionally
            throw new IllegalStateException(e.getCause());
        }
    }

    private int exit(ShellClosed end) {
        OptionalInt exit = end.exitCode();
        if (exit.isPresent()) {
            return exit.getAsInt() & 0xff;
        }
        terminal.err().println("nix-exec: the shell ended: " + end.code() + " " + Printable.line(end.reason()));
        return Exit.SHELL_LOST.code;
    }

    /** The shell's screen to this command's output, at the pace this process writes it, and its end. */
    private static final class Shell implements WebSocket.Listener {

        private final CompletableFuture<ShellClosed> closed;
        private final ShellOutput output;

        Shell(CompletableFuture<ShellClosed> closed, ShellOutput output) {
            this.closed = closed;
            this.output = output;
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            output.attached();
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            output.screen(data);
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(new ShellClosed(statusCode, reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(new ShellClosed(ABNORMAL_CLOSURE, "the connection failed: "
                    + Objects.requireNonNullElse(error.getMessage(), error.getClass().getSimpleName())));
        }
    }
}

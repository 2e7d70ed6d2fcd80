package dev.nixexec.security;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** An attached shell over a real WebSocket: what a client types, what its terminal shows, how it closed. */
final class ShellWire implements WebSocket.Listener {

    private final StringBuilder screen = new StringBuilder();
    /** {@code "<close code> <reason>"} once the service closed the connection. */
    final CompletableFuture<String> closed = new CompletableFuture<>();
    private WebSocket ws;

    /** Attaches to the session with the key; fails if the upgrade is refused. */
    static ShellWire attach(URI base, String key, String session) {
        ShellWire shell = new ShellWire();
        shell.ws = connect(base, key, session, shell).join();
        return shell;
    }

    /** The HTTP status the upgrade was refused with; fails if it was accepted. */
    static int refusal(URI base, String key, String session) {
        try {
            connect(base, key, session, new ShellWire()).join().abort();
        } catch (CompletionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                return refused.getResponse().statusCode();
            }
            throw e;
        }
        throw new AssertionError("the upgrade was accepted");
    }

    private static CompletableFuture<WebSocket> connect(URI base, String key, String session, ShellWire listener) {
        return HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + key)
                .buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "v1/sessions/" + session
                        + "/attach"), listener);
    }

    void type(String line) {
        ws.sendBinary(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)), true).join();
    }

    /** Waits (at most 30 s) until the terminal shows {@code text}. */
    synchronized void await(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!screen.toString().contains(text)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the terminal did not show " + text + ": " + screen);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** The close code and reason, once the service closed the shell (at most {@code seconds} from now). */
    String closedWithin(int seconds) throws Exception {
        try {
            return closed.get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the shell was still open after " + seconds + "s: " + screen(), e);
        }
    }

    synchronized String screen() {
        return screen.toString();
    }

    @Override
    public synchronized CompletionStage<?> onBinary(WebSocket socket, ByteBuffer data, boolean last) {
        screen.append(StandardCharsets.UTF_8.decode(data));
        notifyAll();
        socket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket socket, int code, String reason) {
        closed.complete(code + " " + reason);
        return null;
    }

    @Override
    public void onError(WebSocket socket, Throwable error) {
        closed.completeExceptionally(error);
    }
}

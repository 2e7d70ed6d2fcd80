package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Keys and window sizes sent from two threads at once never overlap: the JDK's WebSocket fails a
 * send begun while another is outstanding, and the failure ended the input of {@code enter} (keys
 * typed after a window size change no longer reached the shell).
 */
class ShellInputTest {

    /** As the JDK's client: one outstanding send; each completes a little later, on another thread. */
    private static final class OneSendAtATime implements WebSocket {
        final AtomicBoolean sending = new AtomicBoolean();
        final List<String> sent = new CopyOnWriteArrayList<>();

        private CompletableFuture<WebSocket> send(String message) {
            if (!sending.compareAndSet(false, true)) {
                return CompletableFuture.failedFuture(new IllegalStateException("Send pending"));
            }
            return CompletableFuture.supplyAsync(() -> {
                sent.add(message);
                sending.set(false);
                return (WebSocket) this;
            }, CompletableFuture.delayedExecutor(200, TimeUnit.MICROSECONDS));
        }

        @Override
        public CompletableFuture<WebSocket> sendText(CharSequence data, boolean last) {
            return send(data.toString());
        }

        @Override
        public CompletableFuture<WebSocket> sendBinary(ByteBuffer data, boolean last) {
            return send("keys " + data.remaining());
        }

        @Override
        public CompletableFuture<WebSocket> sendPing(ByteBuffer message) {
            return send("ping");
        }

        @Override
        public CompletableFuture<WebSocket> sendPong(ByteBuffer message) {
            return send("pong");
        }

        @Override
        public CompletableFuture<WebSocket> sendClose(int statusCode, String reason) {
            return send("close");
        }

        @Override
        public void request(long n) {
        }

        @Override
        public String getSubprotocol() {
            return "";
        }

        @Override
        public boolean isOutputClosed() {
            return false;
        }

        @Override
        public boolean isInputClosed() {
            return false;
        }

        @Override
        public void abort() {
        }
    }

    @Test
    void keysAndWindowSizesFromTwoThreadsTakeTurns() throws Exception {
        OneSendAtATime socket = new OneSendAtATime();
        ShellInput shell = new ShellInput(socket);
        int each = 200;
        Thread keys = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < each; i++) {
                shell.keys(new byte[] {'l', 's', '\r'}, 3);
            }
        });
        Thread sizes = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < each; i++) {
                shell.resize(new TerminalMode.Size(100, 30));
            }
        });
        keys.join();
        sizes.join();
        assertEquals(each, socket.sent.stream().filter("keys 3"::equals).count());
        assertEquals(each, socket.sent.stream().filter("{\"resize\":[100,30]}"::equals).count());
    }
}

package dev.nixexec.cli;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;

/**
 * What goes to the shell over its WebSocket: keys (or the pipe), window sizes, ends of input. The
 * JDK's WebSocket allows one send at a time and fails another begun meanwhile; keys come from the
 * input thread and window sizes from the signal's, so they take turns here. A failed send (the
 * connection ended) throws {@link java.util.concurrent.CompletionException}.
 */
final class ShellInput {

    private static final byte END_OF_INPUT = 4;

    private final WebSocket socket;

    ShellInput(WebSocket socket) {
        this.socket = socket;
    }

    synchronized void keys(byte[] bytes, int length) {
        socket.sendBinary(ByteBuffer.wrap(bytes.clone(), 0, length), true).join();
    }

    synchronized void resize(TerminalMode.Size size) {
        socket.sendText("{\"resize\":[" + size.columns() + "," + size.rows() + "]}", true).join();
    }

    /** Ctrl-D, which the shell's line editor reads as the end of its input. */
    synchronized void endOfInput() {
        socket.sendBinary(ByteBuffer.wrap(new byte[] {END_OF_INPUT}), true).join();
    }
}

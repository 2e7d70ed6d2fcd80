package dev.nixexec.attach;

import io.quarkus.websockets.next.OnBinaryMessage;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.vertx.core.buffer.Buffer;

/**
 * {@code GET /v1/sessions/{id}/attach}: a shell on a terminal in the session's sandbox. Binary
 * frames are terminal bytes both ways; the one text frame is {@code {"resize":[columns,rows]}}.
 * Every check ran before the upgrade ({@link AttachCheck}).
 */
@WebSocket(path = "/v1/sessions/{id}/attach")
public class AttachEndpoint {

    private final AttachedShells shells;

    public AttachEndpoint(AttachedShells shells) {
        this.shells = shells;
    }

    @OnOpen
    void open(WebSocketConnection connection) {
        shells.opened(connection);
    }

    @OnBinaryMessage
    void input(WebSocketConnection connection, Buffer bytes) {
        shells.input(connection, bytes);
    }

    @OnTextMessage
    void text(WebSocketConnection connection, String text) {
        shells.text(connection, text);
    }

    @OnClose
    void close(WebSocketConnection connection) {
        shells.closed(connection);
    }
}

package dev.nixexec.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal blocking HTTP/1.1 client on one kept-alive socket, as curl or a small script would be:
 * java.net.http hands each exchange across several threads, which costs a few milliseconds on this
 * VM that are the client's, not the service's; here the client's work stays on the calling thread.
 */
public final class BareHttp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;

    public BareHttp(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
    }

    public BareHttp(URI endpoint) throws IOException {
        this(endpoint.getHost(), endpoint.getPort());
    }

    /** The bytes of one request to {@code endpoint}'s path plus {@code query}, with a JSON body or none. */
    public static String request(String method, URI endpoint, String query, String key, String jsonBody) {
        String head = method + " " + endpoint.getPath() + query + " HTTP/1.1\r\nHost: " + endpoint.getHost() + ":"
                + endpoint.getPort() + "\r\nAuthorization: Bearer " + key + "\r\n";
        if (jsonBody == null) {
            return head + "\r\n";
        }
        return head + "Content-Type: application/json\r\nContent-Length: "
                + jsonBody.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + jsonBody;
    }

    /** Sends one request and returns the body of its answer (Content-Length or chunked). */
    public String exchange(String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        String status = line();
        if (!status.startsWith("HTTP/1.1 2")) {
            throw new IllegalStateException("answered " + status);
        }
        long length = -1;
        boolean chunked = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(line().strip(), 16); size > 0; size = Integer.parseInt(line().strip(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            line();
        } else {
            body.write(in.readNBytes((int) length));
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

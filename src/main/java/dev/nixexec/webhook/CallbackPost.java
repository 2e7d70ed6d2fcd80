package dev.nixexec.webhook;

import dev.nixexec.job.CallbackUrl;
import dev.nixexec.tenant.WebhookHosts;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 POST over a connection made to the address {@link CallbackAddresses} checked, not
 * to a name looked up again; TLS still checks the certificate against the URL's host. Only the
 * status line is read: a redirect is a status like any other, never followed. The whole attempt
 * (connect, TLS handshake, write and read) ends by its deadline.
 */
final class CallbackPost {

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] (\\d{3})( .*)?");
    private static final int MAX_STATUS_LINE = 8192;

    private CallbackPost() {
    }

    /** The receiver's status code. */
    static int send(CallbackUrl url, InetAddress address, byte[] body, Map<String, String> headers, Duration timeout)
            throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Socket plain = new Socket(); Watchdog watchdog = new Watchdog(plain, timeout)) {
            try {
                plain.connect(new InetSocketAddress(address, url.port()), remainingMillis(deadline));
                plain.setSoTimeout(remainingMillis(deadline));
                Socket socket = url.https() ? tls(plain, url) : plain;
                try {
                    OutputStream out = socket.getOutputStream();
                    out.write(head(url, body.length, headers).getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                    return status(socket, new BufferedInputStream(socket.getInputStream()), deadline);
                } finally {
                    socket.close();
                }
            } catch (IOException e) {
                if (watchdog.fired()) {
                    throw new SocketTimeoutException("the attempt's timeout passed");
                }
                throw e;
            }
        }
    }

    /**
     * Closes the socket when the attempt's deadline passes. A socket's timeout bounds its reads
     * only: a receiver that accepts and never reads would hold a write (and the TLS handshake's
     * writes) for as long as it liked.
     */
    private static final class Watchdog implements AutoCloseable {
        private final Thread thread;
        private volatile boolean fired;

        Watchdog(Socket socket, Duration timeout) {
            thread = Thread.ofVirtual().name("callback-deadline").start(() -> {
                try {
                    Thread.sleep(timeout);
                    fired = true;
                    socket.close();
                } catch (InterruptedException | IOException e) {
                    // the attempt ended first, or the socket was closed already
                }
            });
        }

        boolean fired() {
            return fired;
        }

        @Override
        public void close() {
            thread.interrupt();
        }
    }

    private static Socket tls(Socket plain, CallbackUrl url) throws IOException {
        SSLSocket tls;
        try {
            tls = (SSLSocket) SSLContext.getDefault().getSocketFactory()
                    .createSocket(plain, url.host(), url.port(), true);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (WebhookHosts.ipLiteral(url.host()).isEmpty()) {
            parameters.setServerNames(List.of(new SNIHostName(url.host())));
        }
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        return tls;
    }

    private static String head(CallbackUrl url, int length, Map<String, String> headers) {
        String host = url.host().contains(":") ? "[" + url.host() + "]" : url.host();
        boolean defaultPort = url.port() == (url.https() ? 443 : 80);
        StringBuilder head = new StringBuilder("POST ").append(url.target()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append(defaultPort ? "" : ":" + url.port()).append("\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(length).append("\r\n")
                .append("User-Agent: nix-exec-webhook\r\n")
                .append("Connection: close\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        return head.append("\r\n").toString();
    }

    private static int status(Socket socket, InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (line.size() < MAX_STATUS_LINE) {
            socket.setSoTimeout(remainingMillis(deadline));
            int b = in.read();
            if (b < 0 || b == '\n') {
                break;
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        String text = line.toString(StandardCharsets.ISO_8859_1);
        Matcher m = STATUS_LINE.matcher(text);
        if (!m.matches()) {
            throw new IOException("not an HTTP/1.x status line: " + text.substring(0, Math.min(80, text.length())));
        }
        return Integer.parseInt(m.group(1));
    }

    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("the attempt's timeout passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }
}

package dev.nixexec.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Plays a client on the local network without sending anything off this machine: a socket bound to
 * one of this host's own non-loopback addresses, so the service sees a non-loopback peer.
 */
final class LanPeer {

    private LanPeer() {
    }

    /** A non-loopback IPv4 address of this host that is up, if it has one. */
    static Optional<InetAddress> address() throws SocketException {
        return NetworkInterface.networkInterfaces()
                .filter(LanPeer::up)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress())
                .findFirst();
    }

    private static boolean up(NetworkInterface nic) {
        try {
            return nic.isUp() && !nic.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Sends one raw HTTP/1.1 request from {@code from} to {@code to:port} and returns the whole
     * response (status line, headers, body). {@code headers} are extra lines, each ending in CRLF.
     */
    static String exchange(InetAddress from, InetAddress to, int port, String method, String path,
            String headers, String body) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(to, port), 5_000);
            socket.setSoTimeout(30_000);
            byte[] content = body.getBytes(StandardCharsets.UTF_8);
            String head = method + " " + path + " HTTP/1.1\r\n" + headers
                    + "Content-Length: " + content.length + "\r\nConnection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(content);
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

package dev.nixexec.database;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.SocketFactory;

/**
 * PostgreSQL's Unix socket for the JDBC driver ({@code socketFactory=dev.nixexec.database.UnixSocketFactory},
 * {@code socketFactoryArg=<socket path>}): the JDK's own Unix-domain {@link SocketChannel} behind
 * the {@link Socket} the driver asks for. A virtual thread (jobs, REST and MCP run on them) that
 * blocks on it is parked and woken by the JDK, and a platform thread blocks in the read itself, so
 * a query costs its round trip and no hand-off between threads.
 *
 * <p>The driver waits with a timeout only for notifications ({@code getNotifications(ms)}) and to
 * peek for a pending message (1 ms); such a read first waits for the socket to become readable
 * with a selector of its own, then reads as any other.
 */
public final class UnixSocketFactory extends SocketFactory {

    private final UnixDomainSocketAddress address;

    /** Called by the driver with {@code socketFactoryArg}. */
    public UnixSocketFactory(String socketPath) {
        this.address = UnixDomainSocketAddress.of(socketPath);
    }

    @Override
    public Socket createSocket() throws IOException {
        return new ChannelSocket(address);
    }

    // The driver names a host and port; the socket path is the only place this factory connects to.
    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected();
    }

    private Socket connected() throws IOException {
        ChannelSocket socket = new ChannelSocket(address);
        socket.connect(null);
        return socket;
    }

    /** A {@link Socket} over a Unix-domain channel, with the options the driver sets. */
    private static final class ChannelSocket extends Socket {
        private final UnixDomainSocketAddress address;
        private final SocketChannel channel;
        private final InputStream in = new ChannelInput();
        private final OutputStream out = new ChannelOutput();
        private volatile int timeoutMillis;
        private volatile boolean inputShut;
        private volatile boolean outputShut;
        /** Made for the first timed read: most connections never make one. */
        private Selector selector;
        /** Not a monitor: a virtual thread waiting in the selector must not pin its carrier (JDK 21). */
        private final ReentrantLock selecting = new ReentrantLock();

        ChannelSocket(UnixDomainSocketAddress address) throws IOException {
            super((java.net.SocketImpl) null);
            this.address = address;
            this.channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        }

        // the endpoint the driver made of a host and port means nothing here, nor a timeout: a
        // Unix socket connects at once or fails
        @Override
        public void connect(SocketAddress endpoint) throws IOException {
            channel.connect(address);
        }

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            channel.connect(address);
        }

        @Override
        public InputStream getInputStream() throws IOException {
            ensureOpen();
            return in;
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            ensureOpen();
            return out;
        }

        private void ensureOpen() throws SocketException {
            if (!channel.isOpen()) {
                throw new SocketException("Socket is closed");
            }
        }

        /** Waits until a read would not block, at most the socket's timeout. */
        private void awaitReadable(int timeout) throws IOException {
            selecting.lock();
            try {
                if (selector == null) {
                    selector = Selector.open();
                }
                channel.configureBlocking(false);
                SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
                try {
                    if (selector.select(timeout) == 0) {
                        throw new SocketTimeoutException("Read timed out");
                    }
                } finally {
                    key.cancel();
                    // the cancelled key leaves the selector at its next selection; until then the
                    // channel cannot go back to blocking
                    selector.selectNow();
                    channel.configureBlocking(true);
                }
            } finally {
                selecting.unlock();
            }
        }

        private final class ChannelInput extends InputStream {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                int timeout = timeoutMillis;
                if (timeout > 0) {
                    awaitReadable(timeout);
                }
                return channel.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                ChannelSocket.this.close();
            }
        }

        private final class ChannelOutput extends OutputStream {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }

            @Override
            public void close() throws IOException {
                ChannelSocket.this.close();
            }
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            if (timeout < 0) {
                throw new IllegalArgumentException("timeout < 0");
            }
            timeoutMillis = timeout;
        }

        @Override
        public int getSoTimeout() {
            return timeoutMillis;
        }

        // TCP's options mean nothing on a Unix socket; the driver sets them all the same
        @Override
        public void setTcpNoDelay(boolean on) {
        }

        @Override
        public boolean getTcpNoDelay() {
            return true;
        }

        @Override
        public void setKeepAlive(boolean on) {
        }

        @Override
        public boolean getKeepAlive() {
            return false;
        }

        @Override
        public void setSendBufferSize(int size) throws SocketException {
            option(StandardSocketOptions.SO_SNDBUF, size);
        }

        @Override
        public int getSendBufferSize() throws SocketException {
            return option(StandardSocketOptions.SO_SNDBUF);
        }

        @Override
        public void setReceiveBufferSize(int size) throws SocketException {
            option(StandardSocketOptions.SO_RCVBUF, size);
        }

        @Override
        public int getReceiveBufferSize() throws SocketException {
            return option(StandardSocketOptions.SO_RCVBUF);
        }

        @Override
        public void setSoLinger(boolean on, int linger) throws SocketException {
            option(StandardSocketOptions.SO_LINGER, on ? linger : -1);
        }

        @Override
        public int getSoLinger() throws SocketException {
            return option(StandardSocketOptions.SO_LINGER);
        }

        private void option(java.net.SocketOption<Integer> name, int value) throws SocketException {
            try {
                channel.setOption(name, value);
            } catch (IOException e) {
                throw asSocketException(e);
            }
        }

        private int option(java.net.SocketOption<Integer> name) throws SocketException {
            try {
                return channel.getOption(name);
            } catch (IOException e) {
                throw asSocketException(e);
            }
        }

        private static SocketException asSocketException(IOException e) {
            return e instanceof SocketException s ? s : new SocketException(e.getMessage());
        }

        // no Internet address: a Unix socket has a path, which getRemoteSocketAddress gives
        @Override
        public InetAddress getInetAddress() {
            return null;
        }

        @Override
        public InetAddress getLocalAddress() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public int getPort() {
            return 0;
        }

        @Override
        public int getLocalPort() {
            return -1;
        }

        @Override
        public SocketAddress getRemoteSocketAddress() {
            return channel.isConnected() ? address : null;
        }

        @Override
        public SocketAddress getLocalSocketAddress() {
            return null;
        }

        @Override
        public boolean isConnected() {
            return channel.isConnected();
        }

        @Override
        public boolean isBound() {
            return channel.isConnected();
        }

        @Override
        public boolean isClosed() {
            return !channel.isOpen();
        }

        @Override
        public boolean isInputShutdown() {
            return inputShut;
        }

        @Override
        public boolean isOutputShutdown() {
            return outputShut;
        }

        @Override
        public void shutdownInput() throws IOException {
            channel.shutdownInput();
            inputShut = true;
        }

        @Override
        public void shutdownOutput() throws IOException {
            channel.shutdownOutput();
            outputShut = true;
        }

        @Override
        public void close() throws IOException {
            try {
                channel.close();
            } finally {
                selecting.lock();
                try {
                    if (selector != null) {
                        selector.close();
                    }
                } finally {
                    selecting.unlock();
                }
            }
        }

        @Override
        public String toString() {
            return "Socket[unix:" + address.getPath() + "]";
        }
    }
}

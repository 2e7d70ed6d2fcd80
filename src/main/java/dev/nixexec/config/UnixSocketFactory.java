package dev.nixexec.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.SocketFactory;
import org.newsclub.net.unix.AFUNIXSocketFactory;

/**
 * PostgreSQL's Unix socket for the JDBC driver ({@code socketFactory=dev.nixexec.config.UnixSocketFactory},
 * {@code socketFactoryArg=<socket path>}): junixsocket's socket, with every blocking read and write
 * done on a platform thread. junixsocket parks a virtual thread that blocks on a socket with a
 * poller of its own that does not wake it reliably: a timed wait for notifications was not woken
 * when one arrived, and a query waiting on a row lock kept other virtual threads' queries from
 * being answered (jobs, REST and MCP run on virtual threads). A virtual thread now waits for the
 * platform thread instead, which the JDK parks and wakes properly; a platform thread reads itself.
 */
public final class UnixSocketFactory extends SocketFactory {

    /** Daemon threads, one for each read or write a virtual thread is blocked in; idle ones end after a minute. */
    private static final ExecutorService BLOCKING_IO = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("postgres-socket-io-", 0).factory());

    private final AFUNIXSocketFactory.FactoryArg sockets;

    /** Called by the driver with {@code socketFactoryArg}. */
    public UnixSocketFactory(String socketPath) {
        this.sockets = new AFUNIXSocketFactory.FactoryArg(socketPath);
    }

    @Override
    public Socket createSocket() throws IOException {
        return new PlatformIoSocket(sockets.createSocket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(blocking(() -> sockets.createSocket(host, port)));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(blocking(() -> sockets.createSocket(host, port, localHost, localPort)));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(blocking(() -> sockets.createSocket(host, port)));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(blocking(() -> sockets.createSocket(address, port, localAddress, localPort)));
    }

    private static Socket connected(Socket socket) throws SocketException {
        return new PlatformIoSocket(socket);
    }

    private static <T> T blocking(Callable<T> io) throws IOException {
        if (!Thread.currentThread().isVirtual()) {
            try {
                return io.call();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        Future<T> done = BLOCKING_IO.submit(io);
        try {
            return done.get();
        } catch (InterruptedException e) {
            done.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for PostgreSQL");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io1) {
                throw io1;
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(e.getCause());
        }
    }

    /** The socket as the driver uses it, its streams' blocking calls moved off virtual threads. */
    private static final class PlatformIoSocket extends Socket {
        private final Socket socket;
        private volatile InputStream in;
        private volatile OutputStream out;

        PlatformIoSocket(Socket socket) throws SocketException {
            super((java.net.SocketImpl) null);
            this.socket = socket;
        }

        // Connected on a platform thread too: junixsocket marks a socket connected from a virtual
        // thread for its own poller, and its reads then park there even on a platform thread
        // (UnixSocketVirtualThreadsTest: connections opened on virtual threads were never answered).
        @Override
        public void connect(SocketAddress endpoint) throws IOException {
            blocking(() -> {
                socket.connect(endpoint);
                return null;
            });
        }

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            blocking(() -> {
                socket.connect(endpoint, timeout);
                return null;
            });
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                InputStream raw = socket.getInputStream();
                in = new InputStream() {
                    @Override
                    public int read() throws IOException {
                        return blocking(raw::read);
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        return blocking(() -> raw.read(b, off, len));
                    }

                    @Override
                    public int available() throws IOException {
                        return raw.available();
                    }

                    @Override
                    public void close() throws IOException {
                        raw.close();
                    }
                };
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                OutputStream raw = socket.getOutputStream();
                out = new OutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        blocking(() -> {
                            raw.write(b);
                            return null;
                        });
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        blocking(() -> {
                            raw.write(b, off, len);
                            return null;
                        });
                    }

                    @Override
                    public void flush() throws IOException {
                        blocking(() -> {
                            raw.flush();
                            return null;
                        });
                    }

                    @Override
                    public void close() throws IOException {
                        raw.close();
                    }
                };
            }
            return out;
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            socket.setSoTimeout(timeout);
        }

        @Override
        public int getSoTimeout() throws SocketException {
            return socket.getSoTimeout();
        }

        @Override
        public void setTcpNoDelay(boolean on) throws SocketException {
            socket.setTcpNoDelay(on);
        }

        @Override
        public boolean getTcpNoDelay() throws SocketException {
            return socket.getTcpNoDelay();
        }

        @Override
        public void setKeepAlive(boolean on) throws SocketException {
            socket.setKeepAlive(on);
        }

        @Override
        public boolean getKeepAlive() throws SocketException {
            return socket.getKeepAlive();
        }

        @Override
        public void setSendBufferSize(int size) throws SocketException {
            socket.setSendBufferSize(size);
        }

        @Override
        public int getSendBufferSize() throws SocketException {
            return socket.getSendBufferSize();
        }

        @Override
        public void setReceiveBufferSize(int size) throws SocketException {
            socket.setReceiveBufferSize(size);
        }

        @Override
        public int getReceiveBufferSize() throws SocketException {
            return socket.getReceiveBufferSize();
        }

        @Override
        public void setSoLinger(boolean on, int linger) throws SocketException {
            socket.setSoLinger(on, linger);
        }

        @Override
        public int getSoLinger() throws SocketException {
            return socket.getSoLinger();
        }

        @Override
        public InetAddress getInetAddress() {
            return socket.getInetAddress();
        }

        @Override
        public InetAddress getLocalAddress() {
            return socket.getLocalAddress();
        }

        @Override
        public int getPort() {
            return socket.getPort();
        }

        @Override
        public int getLocalPort() {
            return socket.getLocalPort();
        }

        @Override
        public SocketAddress getRemoteSocketAddress() {
            return socket.getRemoteSocketAddress();
        }

        @Override
        public SocketAddress getLocalSocketAddress() {
            return socket.getLocalSocketAddress();
        }

        @Override
        public boolean isConnected() {
            return socket.isConnected();
        }

        @Override
        public boolean isBound() {
            return socket.isBound();
        }

        @Override
        public boolean isClosed() {
            return socket.isClosed();
        }

        @Override
        public boolean isInputShutdown() {
            return socket.isInputShutdown();
        }

        @Override
        public boolean isOutputShutdown() {
            return socket.isOutputShutdown();
        }

        @Override
        public void shutdownInput() throws IOException {
            socket.shutdownInput();
        }

        @Override
        public void shutdownOutput() throws IOException {
            socket.shutdownOutput();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }

        @Override
        public String toString() {
            return socket.toString();
        }
    }
}

package dev.nixexec.webhook;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP receiver on 127.0.0.1 for callback tests: it keeps every request it gets and answers
 * with the statuses it is given in turn (200 once they run out).
 */
final class CallbackReceiver implements AutoCloseable {

    /** A request as received: its headers (lower-case names, first value) and body bytes. */
    record Received(String path, Map<String, String> headers, byte[] body) {
    }

    private final HttpServer server;
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedDeque<Integer> statuses = new ConcurrentLinkedDeque<>();
    private volatile String location;

    CallbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, String> headers = new java.util.HashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(), values.getFirst()));
            received.add(new Received(exchange.getRequestURI().toString(), headers, body));
            Integer status = statuses.poll();
            int answer = status == null ? 200 : status;
            if (answer / 100 == 3) {
                exchange.getResponseHeaders().add("Location", location);
            }
            exchange.sendResponseHeaders(answer, -1);
            exchange.close();
        });
        server.start();
    }

    /** Answers these statuses to the next requests, in order. */
    CallbackReceiver answering(Integer... answers) {
        statuses.addAll(java.util.List.of(answers));
        return this;
    }

    /** Redirects (answer a 3xx) point here. */
    CallbackReceiver redirectingTo(String url) {
        location = url;
        return this;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** The next request, waiting up to a minute for it. */
    Received next() throws InterruptedException {
        Received r = received.poll(1, TimeUnit.MINUTES);
        if (r == null) {
            throw new AssertionError("no callback arrived at port " + port());
        }
        return r;
    }

    int count() {
        return received.size();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

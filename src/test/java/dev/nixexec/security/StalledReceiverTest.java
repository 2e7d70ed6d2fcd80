package dev.nixexec.security;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A webhook receiver that accepts and then stalls holds only its own deliveries: each attempt has
 * one deadline over connect, write and read, and attempts run independently of each other, at
 * most {@code nixexec.webhooks.concurrency-per-host} at once to one host. Receivers on 127.0.0.1,
 * listed as that IP literal (the only way a callback reaches loopback).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class StalledReceiverTest {

    /** The test profile's {@code nixexec.webhooks.concurrency-per-host} default. */
    private static final int PER_HOST = 4;

    @Inject
    AgroalDataSource db;

    /** A tenant whose policy lists this webhook host, with a webhook secret; its member key. */
    private static String hookedMember(String host) {
        String tenant = tenant("hooks", Map.of("webhook_hosts", List.of(host)));
        as(ADMIN).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201);
        return key(tenant, "member");
    }

    /** Accepts connections and never reads from them: a client's write blocks once the buffers are full. */
    private static final class StalledReceiver implements AutoCloseable {
        private final ServerSocket server = new ServerSocket();
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        StalledReceiver() throws IOException {
            server.setReceiveBufferSize(4096);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(server.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void anotherTenantsCallbackArrivesWhileAReceiverStallsInTheWrite() throws Exception {
        try (StalledReceiver stalled = new StalledReceiver()) {
            String staller = hookedMember("127.0.0.1:" + stalled.port());
            // 1 MiB of bytes 0x01 kept on stdout and on stderr, 6 bytes each in JSON: a 12 MiB body,
            // far more than the loopback buffers hold
            String big = read(as(staller).body(Map.of("language", "bash",
                    "code", "head -c 2097152 /dev/zero | tr '\\000' '\\001'; head -c 2097152 /dev/zero | tr '\\000' '\\001' >&2",
                    "callback_url", "http://127.0.0.1:" + stalled.port() + "/hook")).post("/v1/jobs")
                    .then().statusCode(201).extract().asString(), "id");
            await().atMost(Duration.ofSeconds(90)).until(() -> !stalled.held.isEmpty());

            HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            CompletableFuture<String> arrived = new CompletableFuture<>();
            receiver.createContext("/", exchange -> {
                arrived.complete(exchange.getRequestHeaders().getFirst("X-NixExec-Job"));
                exchange.getRequestBody().readAllBytes();
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            receiver.start();
            try {
                String member = hookedMember("127.0.0.1:" + receiver.getAddress().getPort());
                String job = read(as(member).body(Map.of("language", "bash", "code", "true",
                        "callback_url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook"))
                        .post("/v1/jobs?wait=60").then().statusCode(200).extract().asString(), "id");
                assertEquals(job, arrived.get(2, TimeUnit.SECONDS), "the other tenant's callback, within 2 s of its job's end");
            } finally {
                receiver.stop(0);
            }
            // the stalled attempt itself ends by its deadline (the test profile's attempt-timeout, 5 s)
            List<String> attempts = await().atMost(Duration.ofSeconds(30))
                    .until(() -> column("SELECT detail->>'exception' FROM audit_events WHERE job_id = ? "
                            + "AND kind = 'webhook_delivery' ORDER BY id", UUID.fromString(big)), a -> !a.isEmpty());
            assertTrue(attempts.getFirst().contains("timeout"), attempts.toString());
        }
    }

    @Test
    void oneHostGetsAtMostItsShareOfDeliveriesAtOnce() throws Exception {
        // reads each request whole (so it sees the connection close) and never answers
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger open = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            AtomicInteger connections = new AtomicInteger();
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        Socket s = silent.accept();
                        connections.incrementAndGet();
                        most.accumulateAndGet(open.incrementAndGet(), Math::max);
                        Thread.ofVirtual().start(() -> {
                            try (s; InputStream in = s.getInputStream()) {
                                in.transferTo(OutputStream.nullOutputStream());
                            } catch (IOException e) {
                                // the attempt gave up: that ends the connection too
                            } finally {
                                open.decrementAndGet();
                            }
                        });
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            // jobs that never run (the tenant may run none), cancelled together: their callbacks are due at once
            String host = "127.0.0.1:" + silent.getLocalPort();
            String tenant = tenant("hooks", Map.of("webhook_hosts", List.of(host), "max_running", 0));
            as(ADMIN).post("/v1/admin/tenants/" + tenant + "/webhook-secret").then().statusCode(201);
            String member = key(tenant, "member");
            List<String> jobs = new ArrayList<>();
            for (int i = 0; i < PER_HOST + 2; i++) {
                jobs.add(read(as(member).body(Map.of("language", "bash", "code", "true",
                        "callback_url", "http://" + host + "/hook")).post("/v1/jobs").then().statusCode(201)
                        .extract().asString(), "id"));
            }
            jobs.forEach(id -> as(member).post("/v1/jobs/" + id + "/cancel").then().statusCode(202));
            await().atMost(Duration.ofSeconds(60)).until(() -> connections.get() >= PER_HOST + 2);
            assertEquals(PER_HOST, most.get(), "connections open at once to one host");
        }
    }

    private List<String> column(String sql, UUID id) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setObject(1, id);
            List<String> values = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
            return values;
        }
    }
}

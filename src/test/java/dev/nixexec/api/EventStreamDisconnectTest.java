package dev.nixexec.api;

import static dev.nixexec.api.ObservabilityTest.sample;
import static dev.nixexec.api.ObservabilityTest.scrape;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.Api.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.logging.ClientGoneFilter;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that leaves a job's event stream, mid-stream or right after asking, is ordinary: the
 * service logs nothing at WARN or above and its follower ends (and with it its database reads).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class EventStreamDisconnectTest {

    /** Prints a line every 50 ms for about 15 s: events keep coming while the client leaves. */
    private static final Map<String, Object> CHATTY = Map.of("language", "bash",
            "code", "for i in $(seq 1 300); do echo line $i; sleep 0.05; done");

    @TestHTTPResource("/")
    URL base;

    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    /** What the console would print at WARN or above (it drops a write to a closed connection: ClientGoneFilter). */
    private final Handler capture = new Handler() {
        private final ClientGoneFilter console = new ClientGoneFilter();

        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue() && console.isLoggable(record)) {
                warnings.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureWarnings() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        Logger.getLogger("").removeHandler(capture);
    }

    @Test
    void leavingMidStreamLogsNothingAndEndsTheFollower() throws Exception {
        for (String accept : List.of("text/event-stream", "application/x-ndjson")) {
            String member = memberKey("leaves");
            String id = submit(member, CHATTY);
            double followers = sample(scrape(), "nixexec_sse_followers", Map.of());
            try (Socket socket = open(id, member, accept);
                    BufferedReader reader = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                int lines = 0;
                for (String line; lines < 3 && (line = reader.readLine()) != null; ) {
                    if (line.contains("line ")) {
                        lines++;
                    }
                }
                assertEquals(3, lines, "the stream carried the job's output before the client left");
            }
            awaitQuiet(followers);
            as(member).post("/v1/jobs/" + id + "/cancel");
        }
    }

    @Test
    void leavingRightAfterAskingLogsNothingAndEndsTheFollower() throws Exception {
        String member = memberKey("asks");
        String id = submit(member, CHATTY);
        double followers = sample(scrape(), "nixexec_sse_followers", Map.of());
        for (int i = 0; i < 5; i++) {
            open(id, member, i % 2 == 0 ? "text/event-stream" : "application/x-ndjson").close();
        }
        awaitQuiet(followers);
        as(member).post("/v1/jobs/" + id + "/cancel");
    }

    /** A raw connection, so the test can leave without reading what is on its way. */
    private Socket open(String id, String key, String accept) throws Exception {
        Socket socket = new Socket(base.getHost(), base.getPort());
        OutputStream out = socket.getOutputStream();
        out.write(("GET /v1/jobs/" + id + "/events HTTP/1.1\r\nHost: " + base.getHost() + "\r\nAccept: " + accept
                + "\r\nAuthorization: Bearer " + key + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** The followers the test opened are gone, and for a while after nothing was logged at WARN or above. */
    private void awaitQuiet(double followers) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> sample(scrape(), "nixexec_sse_followers", Map.of()) == followers);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertEquals(List.of(), warnings.stream().map(EventStreamDisconnectTest::describe).toList()));
    }

    private static String describe(LogRecord record) {
        return record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
                + (record.getThrown() == null ? "" : " (" + record.getThrown() + ")");
    }
}

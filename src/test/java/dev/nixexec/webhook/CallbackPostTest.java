package dev.nixexec.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.nixexec.job.CallbackUrl;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding: a delivery goes to the address {@link CallbackAddresses} checked, never to what a
 * second lookup of the name would give. A real POST to a real receiver on loopback, under a name
 * that does not resolve at all ({@code .invalid}, RFC 2606): any lookup at connect time would fail.
 * And a receiver that stops reading cannot hold an attempt past its deadline.
 */
class CallbackPostTest {

    @Test
    void theRequestGoesToTheCheckedAddressWithoutLookingTheNameUpAgain() throws Exception {
        try (CallbackReceiver receiver = new CallbackReceiver()) {
            CallbackUrl url = CallbackUrl.parse("http://rebinding.invalid:" + receiver.port() + "/hook?n=1");
            byte[] body = "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8);

            int status = CallbackPost.send(url, InetAddress.getLoopbackAddress(), body,
                    Map.of(WebhookSignature.HEADER, "sha256=00"), Duration.ofSeconds(10));

            assertEquals(200, status);
            CallbackReceiver.Received received = receiver.next();
            assertEquals("/hook?n=1", received.path());
            assertEquals("rebinding.invalid:" + receiver.port(), received.headers().get("host"),
                    "the name is the Host header, the checked address the peer");
            assertEquals("sha256=00", received.headers().get("x-nixexec-signature"));
            assertEquals("{\"id\":\"x\"}", new String(received.body(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aRedirectIsAnsweredAsItsStatusNotFollowed() throws Exception {
        try (CallbackReceiver internal = new CallbackReceiver();
                CallbackReceiver receiver = new CallbackReceiver().answering(307)) {
            receiver.redirectingTo("http://127.0.0.1:" + internal.port() + "/internal");
            int status = CallbackPost.send(CallbackUrl.parse("http://127.0.0.1:" + receiver.port() + "/hook"),
                    InetAddress.getLoopbackAddress(), new byte[0], Map.of(), Duration.ofSeconds(10));
            assertEquals(307, status);
            assertEquals(1, receiver.count());
            assertEquals(0, internal.count(), "the redirect target was never asked");
        }
    }

    @Test
    void aReceiverThatNeverReadsCannotHoldTheWritePastTheDeadline() throws Exception {
        try (ServerSocket stalled = new ServerSocket()) {
            stalled.setReceiveBufferSize(4096);
            stalled.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            // accepted and never read: 32 MiB fill the buffers on both sides long before the end
            Thread accepting = Thread.ofVirtual().start(() -> {
                try (Socket held = stalled.accept()) {
                    Thread.sleep(Duration.ofMinutes(1));
                } catch (Exception e) {
                    // the test is over
                }
            });
            try {
                CallbackUrl url = CallbackUrl.parse("http://127.0.0.1:" + stalled.getLocalPort() + "/hook");
                SocketTimeoutException timedOut = assertTimeoutPreemptively(Duration.ofSeconds(10),
                        () -> assertThrows(SocketTimeoutException.class, () -> CallbackPost.send(url,
                                InetAddress.getLoopbackAddress(), new byte[32 << 20], Map.of(), Duration.ofSeconds(1))));
                assertEquals("the attempt's timeout passed", timedOut.getMessage());
            } finally {
                accepting.interrupt();
            }
        }
    }
}

package dev.nixexec.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.job.CallbackUrl;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding: a delivery goes to the address {@link CallbackAddresses} checked, never to what a
 * second lookup of the name would give. A real POST to a real receiver on loopback, under a name
 * that does not resolve at all ({@code .invalid}, RFC 2606): any lookup at connect time would fail.
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
}

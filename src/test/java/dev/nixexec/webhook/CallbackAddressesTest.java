package dev.nixexec.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.CallbackUrl;
import dev.nixexec.tenant.WebhookHosts;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SSRF rules: which addresses are internal, and when an internal one may still be reached. */
class CallbackAddressesTest {

    @Test
    void internalAddressesAreRecognised() throws Exception {
        for (String internal : List.of("127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                "192.168.1.1", "169.254.169.254", "fe80::1", "fc00::1", "fd12:3456::1", "0.0.0.0", "::", "224.0.0.1",
                "ff02::1", "100.64.0.1", "255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1",
                "64:ff9b::a9fe:a9fe", "fec0::1",
                // 6to4 (2002::/16) and Teredo (2001::/32, the client's address inverted) reach the IPv4 inside
                "2002:7f00:1::1", "2002:a9fe:a9fe::", "2002:c0a8:101:1::1", "2001:0:4136:e378:8000:63bf:80ff:fffe",
                "2001:0:4136:e378:8000:63bf:f5ff:fffe",
                // NAT64's local-use prefix (64:ff9b:1::/48) translates inside the site
                "64:ff9b:1::808:808")) {
            assertTrue(CallbackAddresses.internal(InetAddress.getByName(internal)), internal);
        }
        for (String external : List.of("93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "64:ff9b::808:808",
                "2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:f7f7")) {
            assertFalse(CallbackAddresses.internal(InetAddress.getByName(external)), external);
        }
    }

    @Test
    void aNameResolvingToLoopbackIsRefusedEvenWhenListed() throws Exception {
        CallbackAddresses.Target target = CallbackAddresses.resolve(CallbackUrl.parse("http://localhost:8080/hook"),
                new WebhookHosts(List.of("localhost")));
        assertInstanceOf(CallbackAddresses.Refused.class, target);
    }

    @Test
    void anInternalIpLiteralIsReachedOnlyWhenListedAsThatLiteral() throws Exception {
        CallbackUrl url = CallbackUrl.parse("http://10.0.0.5:8080/hook");
        assertEquals(new CallbackAddresses.Reachable(InetAddress.getByName("10.0.0.5")),
                CallbackAddresses.resolve(url, new WebhookHosts(List.of("10.0.0.5:8080"))));
        assertInstanceOf(CallbackAddresses.Refused.class, CallbackAddresses.resolve(url, new WebhookHosts(List.of("10.0.0.6"))));
        assertInstanceOf(CallbackAddresses.Refused.class, CallbackAddresses.resolve(url, new WebhookHosts(List.of("10.0.0.5:80"))));
        assertInstanceOf(CallbackAddresses.Refused.class, CallbackAddresses.resolve(CallbackUrl.parse("http://[::1]:8080/"),
                new WebhookHosts(List.of("localhost:8080"))));
        assertEquals(new CallbackAddresses.Reachable(InetAddress.getByName("::1")),
                CallbackAddresses.resolve(CallbackUrl.parse("http://[::1]:8080/"), new WebhookHosts(List.of("[0:0::1]:8080"))));
    }
}

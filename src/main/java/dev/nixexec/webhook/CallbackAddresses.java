package dev.nixexec.webhook;

import dev.nixexec.job.CallbackUrl;
import dev.nixexec.tenant.WebhookHosts;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The SSRF rules of a delivery: the host must still be in the tenant's {@code webhook_hosts}, and
 * is resolved now, once; the address checked is the address connected to ({@link CallbackPost}),
 * so a second DNS answer (rebinding) never counts. An internal address (loopback, private,
 * link-local, unspecified, multicast and the like) is reached only when the host is listed as that
 * IP literal.
 */
final class CallbackAddresses {

    private CallbackAddresses() {
    }

    /** Where a delivery goes, or why it does not. */
    sealed interface Target permits Reachable, Refused {
    }

    record Reachable(InetAddress address) implements Target {
    }

    record Refused(String reason) implements Target {
    }

    /** Resolves the URL's host (a literal is not looked up) and applies the rules. */
    static Target resolve(CallbackUrl url, WebhookHosts hosts) throws UnknownHostException {
        if (!hosts.lists(url.host(), url.port())) {
            return new Refused("host " + url.host() + ":" + url.port() + " is not in the tenant's webhook_hosts");
        }
        if (hosts.listsIpLiteral(url.host(), url.port())) {
            return new Reachable(WebhookHosts.ipLiteral(url.host()).orElseThrow());
        }
        InetAddress[] addresses = InetAddress.getAllByName(url.host());
        // one internal answer refuses the host: a name that mixes them is not a public receiver
        return Arrays.stream(addresses).filter(CallbackAddresses::internal).findFirst()
                .<Target>map(a -> new Refused(url.host() + " resolves to the internal address " + a.getHostAddress()
                        + "; only a host listed as an IP literal in webhook_hosts may be internal"))
                .orElseGet(() -> new Reachable(addresses[0]));
    }

    /** Not a public unicast address: no callback goes there unless listed as this literal. */
    static boolean internal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isLinkLocalAddress() || address.isSiteLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            return first == 0 // this network
                    || (first == 100 && second >= 64 && second < 128) // shared address space (CGNAT)
                    || (first == 198 && (second == 18 || second == 19)) // benchmarking
                    || first >= 240; // reserved and broadcast
        }
        if (address instanceof Inet6Address v6) {
            if ((b[0] & 0xfe) == 0xfc) {
                return true; // unique local fc00::/7
            }
            if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0xc0) {
                return true; // site-local fec0::/10 (deprecated, still routed inside some networks)
            }
            if (nat64(b) && b[4] == 0 && b[5] == 1) {
                return true; // NAT64's local-use prefix 64:ff9b:1::/48 translates to addresses inside the site
            }
            byte[] embedded = embeddedIpv4(v6, b);
            if (embedded != null) {
                try {
                    return internal(InetAddress.getByAddress(embedded));
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return false;
    }

    /** Under 64:ff9b::/32, NAT64's prefixes: the well-known /96 and the local-use /48. */
    private static boolean nat64(byte[] b) {
        return b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
    }

    /**
     * The IPv4 address an IPv6 one carries traffic to, judged as that address: compatible
     * ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002:AABB:CCDD::/48, and Teredo 2001:0::/32 (the client's
     * address in the last 32 bits, inverted); null for any other.
     */
    private static byte[] embeddedIpv4(Inet6Address v6, byte[] b) {
        if (v6.isIPv4CompatibleAddress() || (nat64(b) && Arrays.equals(Arrays.copyOfRange(b, 4, 12), new byte[8]))) {
            return Arrays.copyOfRange(b, 12, 16);
        }
        if (b[0] == 0x20 && b[1] == 0x02) {
            return Arrays.copyOfRange(b, 2, 6);
        }
        if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
            byte[] client = Arrays.copyOfRange(b, 12, 16);
            for (int i = 0; i < client.length; i++) {
                client[i] = (byte) ~client[i];
            }
            return client;
        }
        return null;
    }
}

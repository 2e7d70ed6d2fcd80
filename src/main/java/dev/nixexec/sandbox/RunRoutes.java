package dev.nixexec.sandbox;

import java.util.ArrayList;
import java.util.List;

/**
 * The routes of a networked run's own namespace, set before its code starts; the code has no
 * capabilities there, so it cannot change them. The user-mode stack relays whatever reaches its
 * gateway as ordinary sockets of the node, so what it must not reach is refused here, by the
 * kernel, with {@code prohibit} routes ("permission denied" at once, no packet sent): every range
 * that is not the internet, then the node's own addresses. Longest prefix wins, so an allowed
 * range inside a refused one is a more specific route through the gateway, and the stack's own
 * subnet (gateway, DNS) stays on the link.
 */
final class RunRoutes {

    /** slirp4netns's defaults: its subnet, its gateway, the run's address and its interface. */
    static final String TAP = "tap0";
    static final String GATEWAY = "10.0.2.2";
    static final String ADDRESS = "10.0.2.100/24";
    /** slirp4netns's largest MTU: fewer, larger segments through the relay. */
    static final int MTU = 65520;

    /**
     * Not the internet: this network, private (RFC 1918), shared (CGNAT), link-local (cloud
     * metadata), IETF protocol assignments, benchmarking, multicast and reserved. Loopback is the
     * run's own and stays.
     */
    static final List<Ipv4Range> REFUSED = List.of("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16",
            "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4")
            .stream().map(Ipv4Range::parse).toList();

    private RunRoutes() {
    }

    /**
     * The {@code ip -batch} lines: the TAP device up with its address and the default route (what
     * slirp4netns's {@code --configure} would do, but for loopback, which is bubblewrap's), the
     * refused ranges, the allowed ones through the gateway, and the node's own addresses refused
     * last, whatever was allowed (a service listening on all of the node's addresses is never the
     * run's to reach).
     */
    static List<String> ipBatch(List<Ipv4Range> allowed, List<Ipv4Range> nodeAddresses) {
        List<String> lines = new ArrayList<>(List.of("link set " + TAP + " mtu " + MTU + " up",
                "addr add " + ADDRESS + " dev " + TAP, "route add default via " + GATEWAY + " dev " + TAP));
        for (Ipv4Range range : REFUSED) {
            lines.add("route add prohibit " + range);
        }
        for (Ipv4Range range : allowed) {
            // replace: an allowed range may be exactly a refused one
            lines.add("route replace " + range + " via " + GATEWAY + " dev " + TAP);
        }
        for (Ipv4Range address : nodeAddresses) {
            lines.add("route replace prohibit " + address);
        }
        return lines;
    }
}

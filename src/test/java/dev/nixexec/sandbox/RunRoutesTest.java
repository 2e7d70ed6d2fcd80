package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RunRoutesTest {

    @Test
    void theTapThenRefusedRangesThenAllowedThenTheNodesOwnAddresses() {
        List<String> lines = RunRoutes.ipBatch(List.of(Ipv4Range.parse("10.0.0.0/8"), Ipv4Range.parse("192.168.7.0/24")),
                List.of(Ipv4Range.parse("192.168.7.5")));
        // the TAP device first, as slirp4netns's --configure would, loopback aside (bubblewrap's)
        assertEquals(List.of("link set tap0 mtu 65520 up", "addr add 10.0.2.100/24 dev tap0",
                "route add default via 10.0.2.2 dev tap0"), lines.subList(0, 3));
        assertEquals("route add prohibit 0.0.0.0/8", lines.get(3));
        assertTrue(lines.contains("route add prohibit 169.254.0.0/16"), lines.toString());
        int allowed = lines.indexOf("route replace 10.0.0.0/8 via 10.0.2.2 dev tap0");
        assertTrue(allowed > lines.indexOf("route add prohibit 10.0.0.0/8"), lines.toString());
        assertEquals("route replace prohibit 192.168.7.5/32", lines.get(lines.size() - 1));
        // the run's own loopback is its own, and bubblewrap's to set up
        assertFalse(lines.stream().anyMatch(l -> l.contains("127.0.0.0") || l.contains(" lo")), lines.toString());
    }

    @Test
    void rangesAreParsedStrictly() {
        assertEquals("10.1.0.0/16", Ipv4Range.parse(" 10.1.0.0/16 ").toString());
        assertEquals("8.8.8.8/32", Ipv4Range.parse("8.8.8.8").toString());
        assertTrue(Ipv4Range.parse("10.0.0.0/8").covers(Ipv4Range.parse("10.0.2.3")));
        assertFalse(Ipv4Range.parse("10.0.0.0/8").covers(Ipv4Range.parse("11.0.0.1")));
        for (String bad : List.of("10.1.2.3/8", "10.0.0.0/33", "10.0.0/8", "256.0.0.0/8", "10.0.0.0/x", "::1/128",
                "10.0.0.0/8/8", "0x0a.0.0.0/8", "")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ipv4Range.parse(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }
}

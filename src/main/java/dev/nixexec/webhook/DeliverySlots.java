package dev.nixexec.webhook;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The delivery attempts a node has in flight: at most {@code perNode} in all and {@code perHost} to
 * one receiving host, so that receivers that stall take places up to a bound and never all of a
 * node's.
 */
final class DeliverySlots {

    private final int perNode;
    private final int perHost;
    private final Map<String, Integer> byHost = new HashMap<>();
    private int inFlight;

    DeliverySlots(int perNode, int perHost) {
        this.perNode = perNode;
        this.perHost = perHost;
    }

    /** How many more attempts the node may start. */
    synchronized int free() {
        return perNode - inFlight;
    }

    /** The hosts that have all their places taken: nothing more is claimed for them. */
    synchronized Set<String> fullHosts() {
        return byHost.entrySet().stream().filter(e -> e.getValue() >= perHost).map(Map.Entry::getKey)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Takes a place for an attempt to this host; false when the node or the host has none free. */
    synchronized boolean take(String host) {
        int toHost = byHost.getOrDefault(host, 0);
        if (inFlight >= perNode || toHost >= perHost) {
            return false;
        }
        byHost.put(host, toHost + 1);
        inFlight++;
        return true;
    }

    /** Gives back a place {@link #take} gave. */
    synchronized void release(String host) {
        byHost.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
        inFlight--;
    }
}

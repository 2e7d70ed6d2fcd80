package dev.nixexec.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class DeliverySlotsTest {

    @Test
    void aHostGetsItsShareAndTheNodeItsBound() {
        DeliverySlots slots = new DeliverySlots(3, 2);
        assertTrue(slots.take("slow.example"));
        assertTrue(slots.take("slow.example"));
        assertFalse(slots.take("slow.example"), "a host's places are all taken");
        assertEquals(Set.of("slow.example"), slots.fullHosts());
        assertTrue(slots.take("other.example"), "another host still gets one");
        assertEquals(0, slots.free());
        assertFalse(slots.take("third.example"), "the node's places are all taken");

        slots.release("slow.example");
        assertEquals(Set.of(), slots.fullHosts());
        assertEquals(1, slots.free());
        assertTrue(slots.take("third.example"));
    }
}

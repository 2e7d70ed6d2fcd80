package dev.nixexec.worker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The reaper's patience after a stalled database or a jumping clock (times are made up here). */
class ReapGateTest {

    private static final long S = 1_000_000_000L;
    private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

    private final ReapGate gate = new ReapGate(Duration.ofSeconds(10), Duration.ofSeconds(1));

    /** A prompt round trip at local second {@code at}, the database clock in step. */
    private void steady(long at) {
        gate.contact(at * S, at * S + S / 100, T0.plusSeconds(at));
    }

    @Test
    void reapsOnlyAfterALeaseOfSteadyContact() {
        assertFalse(gate.mayReap(0), "no contact yet");
        for (long t = 0; t <= 9; t++) {
            steady(t);
        }
        assertFalse(gate.mayReap(9 * S + S / 2));
        steady(10);
        assertTrue(gate.mayReap(10 * S + S / 2));
    }

    @Test
    void aStalledRoundTripRestartsTheWait() {
        for (long t = 0; t <= 12; t++) {
            steady(t);
        }
        assertTrue(gate.mayReap(12 * S + S / 2));
        // The database froze for 15 s: the round trip that began at 13 ends at 28.
        gate.contact(13 * S, 28 * S, T0.plusSeconds(28));
        assertFalse(gate.mayReap(28 * S + S / 2), "every lease looks expired right after a stall");
        for (long t = 29; t <= 37; t++) {
            steady(t);
        }
        assertFalse(gate.mayReap(37 * S + S / 2));
        steady(38);
        assertTrue(gate.mayReap(38 * S + S / 2));
    }

    @Test
    void aGapBetweenContactsRestartsTheWait() {
        for (long t = 0; t <= 12; t++) {
            steady(t);
        }
        steady(20);
        assertFalse(gate.mayReap(20 * S + S / 2));
    }

    @Test
    void aJumpOfTheDatabaseClockRestartsTheWait() {
        for (long t = 0; t <= 12; t++) {
            steady(t);
        }
        gate.contact(13 * S, 13 * S + S / 100, T0.plusSeconds(13 + 3600));
        assertFalse(gate.mayReap(13 * S + S / 2), "a clock an hour ahead makes every lease look expired");
    }

    @Test
    void aFailedRoundTripStopsReapingUntilContactIsSteadyAgain() {
        for (long t = 0; t <= 12; t++) {
            steady(t);
        }
        gate.lost();
        assertFalse(gate.mayReap(13 * S));
        steady(14);
        assertFalse(gate.mayReap(14 * S + S / 2));
    }
}

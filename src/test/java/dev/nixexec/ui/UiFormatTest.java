package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Durations and sizes as the pages write them. */
class UiFormatTest {

    @Test
    void durationsReadAsPeopleSayThem() {
        assertEquals("0 ms", UiFormat.duration(0));
        assertEquals("850 ms", UiFormat.duration(850));
        assertEquals("1.0 s", UiFormat.duration(1000));
        assertEquals("1.2 s", UiFormat.duration(1249));
        assertEquals("9.9 s", UiFormat.duration(9999));
        assertEquals("42 s", UiFormat.duration(42_700));
        assertEquals("1 min", UiFormat.duration(60_000));
        assertEquals("3 min 4 s", UiFormat.duration(184_900));
        assertEquals("59 min 59 s", UiFormat.duration(3_599_999));
        assertEquals("1 h", UiFormat.duration(3_600_000));
        assertEquals("2 h 5 min", UiFormat.duration(7_500_000 + 59_000));
    }

    @Test
    void sizesReadInBinaryUnits() {
        assertEquals("512 B", UiFormat.bytes(512));
        assertEquals("1.5 KiB", UiFormat.bytes(1536));
        assertEquals("12.0 MiB", UiFormat.bytes(12 * 1024 * 1024));
    }
}

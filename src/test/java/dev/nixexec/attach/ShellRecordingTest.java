package dev.nixexec.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.sandbox.TerminalSize;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A shell's recording as asciicast v2: its header, its events in order, a character split across chunks, its bound. */
class ShellRecordingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MS = 1_000_000;

    private static List<JsonNode> lines(String cast) {
        return cast.lines().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (Exception e) {
                throw new AssertionError(l, e);
            }
        }).toList();
    }

    @Test
    void aShellIsAnAsciicastV2HeaderThenTimedOutputInputAndResizes() {
        ShellRecording r = new ShellRecording(1 << 20, new TerminalSize(80, 24), Instant.ofEpochSecond(1_700_000_000), 0);
        r.output("$ ".getBytes(StandardCharsets.UTF_8), 100 * MS);
        r.input("ls\r".getBytes(StandardCharsets.UTF_8), 1500 * MS);
        r.resize(new TerminalSize(120, 40), 1600 * MS);
        byte[] euro = "€\r\n".getBytes(StandardCharsets.UTF_8);
        r.output(Arrays.copyOfRange(euro, 0, 1), 2000 * MS); // a character cut between two chunks
        r.output(Arrays.copyOfRange(euro, 1, euro.length), 2001 * MS);
        List<JsonNode> lines = lines(r.cast(JSON));
        JsonNode header = lines.get(0);
        assertEquals(2, header.get("version").asInt());
        assertEquals(80, header.get("width").asInt());
        assertEquals(24, header.get("height").asInt());
        assertEquals(1_700_000_000L, header.get("timestamp").asLong());
        assertEquals("[0.1,\"o\",\"$ \"]", lines.get(1).toString());
        assertEquals("[1.5,\"i\",\"ls\\r\"]", lines.get(2).toString());
        assertEquals("[1.6,\"r\",\"120x40\"]", lines.get(3).toString());
        assertEquals("[2.001,\"o\",\"€\\r\\n\"]", lines.get(4).toString(), "the cut character is whole, in the chunk that ended it");
        assertEquals(5, lines.size());
        assertFalse(r.truncated());
    }

    @Test
    void pastItsBudgetItKeepsTheStartAndTheEndAndMarksTheGap() {
        ShellRecording r = new ShellRecording(4000, TerminalSize.DEFAULT, Instant.EPOCH, 0);
        for (int i = 0; i < 1000; i++) {
            r.output(("line " + i + "\r\n").getBytes(StandardCharsets.UTF_8), i * MS);
        }
        String cast = r.cast(JSON);
        assertTrue(r.truncated());
        assertTrue(cast.length() < 4000 + 200, "bounded: " + cast.length());
        List<JsonNode> lines = lines(cast);
        assertEquals("line 0\r\n", lines.get(1).get(2).asText(), "the start is kept");
        assertEquals("line 999\r\n", lines.getLast().get(2).asText(), "the end is kept");
        JsonNode gap = lines.stream().filter(l -> l.get(2) != null && l.get(2).asText().contains("bytes not recorded"))
                .findFirst().orElseThrow();
        assertTrue(gap.get(2).asText().matches("\\r\\n\\[\\.\\.\\. \\d+ bytes not recorded \\.\\.\\.\\]\\r\\n"), gap.toString());
        double last = -1;
        for (JsonNode l : lines.subList(1, lines.size())) {
            assertTrue(l.get(0).asDouble() >= last, "times never go back: " + cast);
            last = l.get(0).asDouble();
        }
    }
}

package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** enter --json's text of the shell's frames: characters split across frames come out whole. */
class Utf8StreamTest {

    private static ByteBuffer bytes(int... values) {
        ByteBuffer buffer = ByteBuffer.allocate(values.length);
        for (int value : values) {
            buffer.put((byte) value);
        }
        return buffer.flip();
    }

    @Test
    void aCharacterSplitAcrossFramesComesOutWholeWithItsLastByte() {
        Utf8Stream stream = new Utf8Stream();
        // "a€" then "🙂b": the euro sign's 3 bytes and the emoji's 4 across three frames
        assertEquals("a", stream.decode(bytes('a', 0xE2, 0x82)));
        assertEquals("€", stream.decode(bytes(0xAC, 0xF0, 0x9F)));
        assertEquals("", stream.decode(bytes(0x99)));
        assertEquals("🙂b", stream.decode(bytes(0x82, 'b')));
        assertEquals("", stream.end());
    }

    @Test
    void everyByteSplitApartStillDecodesToTheWholeText() {
        String text = "grüße, 世界 🙂\n";
        Utf8Stream stream = new Utf8Stream();
        StringBuilder decoded = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            decoded.append(stream.decode(bytes(b & 0xff)));
        }
        decoded.append(stream.end());
        assertEquals(text, decoded.toString());
    }

    @Test
    void bytesThatAreNotUtf8AreReplacementCharactersNotDropped() {
        Utf8Stream stream = new Utf8Stream();
        assertEquals("a\uFFFDb", stream.decode(bytes('a', 0xFF, 'b')));
        // a character cut off by the end of the stream: one replacement, not nothing
        assertEquals("c", stream.decode(bytes('c', 0xE2, 0x82)));
        assertEquals("\uFFFD", stream.end());
    }
}

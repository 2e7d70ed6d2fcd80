package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputCaptureTest {

    private static void write(OutputCapture capture, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        capture.append(bytes, 0, bytes.length);
    }

    @Test
    void keepsEverythingThatFits() {
        OutputCapture capture = new OutputCapture(10);
        write(capture, "hello");
        write(capture, "world");
        OutputCapture.Captured result = capture.result();
        assertFalse(result.truncated());
        assertEquals("helloworld", result.text());
        assertEquals(10, result.totalBytes());
    }

    @Test
    void keepsHeadAndTailOfMore() {
        OutputCapture capture = new OutputCapture(10);
        for (char c = 'a'; c <= 'z'; c++) {
            write(capture, String.valueOf(c));
        }
        OutputCapture.Captured result = capture.result();
        assertTrue(result.truncated());
        assertEquals(26, result.totalBytes());
        assertEquals("abcde", new String(result.head(), StandardCharsets.US_ASCII));
        assertEquals("vwxyz", new String(result.tail(), StandardCharsets.US_ASCII));
        assertEquals(16, result.omittedBytes());
        assertTrue(result.text().contains("[... 16 bytes truncated ...]"));
    }

    @Test
    void largeWritesInOneCall() {
        OutputCapture capture = new OutputCapture(8);
        write(capture, "0123456789abcdef");
        OutputCapture.Captured result = capture.result();
        assertEquals("0123", new String(result.head(), StandardCharsets.US_ASCII));
        assertEquals("cdef", new String(result.tail(), StandardCharsets.US_ASCII));
    }

    @Test
    void exactlyOneByteOver() {
        OutputCapture capture = new OutputCapture(4);
        write(capture, "abcde");
        OutputCapture.Captured result = capture.result();
        assertTrue(result.truncated());
        assertEquals("ab", new String(result.head(), StandardCharsets.US_ASCII));
        assertEquals("de", new String(result.tail(), StandardCharsets.US_ASCII));
        assertEquals(1, result.omittedBytes());
    }

    @Test
    void bytesAreTheKeptBytesExactlyWithTheTextsMark() {
        OutputCapture capture = new OutputCapture(4);
        byte[] data = {(byte) 0xff, 0, 'a', 'b', 'c', (byte) 0xfe, (byte) 0x80};
        capture.append(data, 0, data.length);
        OutputCapture.Captured result = capture.result();
        byte[] mark = "\n[... 3 bytes truncated ...]\n".getBytes(StandardCharsets.UTF_8);
        byte[] expected = new byte[2 + mark.length + 2];
        expected[0] = (byte) 0xff;
        expected[1] = 0;
        System.arraycopy(mark, 0, expected, 2, mark.length);
        expected[expected.length - 2] = (byte) 0xfe;
        expected[expected.length - 1] = (byte) 0x80;
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, result.bytes());
        assertEquals(new String(expected, StandardCharsets.UTF_8), result.text());
    }

    /** The capture grows as it is written: many small writes of every size keep the same bytes as one would. */
    @Test
    void growingThroughManyWritesKeepsTheSameHeadAndTail() {
        java.util.Random random = new java.util.Random(18);
        byte[] all = new byte[5000];
        random.nextBytes(all);
        OutputCapture capture = new OutputCapture(1000);
        for (int at = 0; at < all.length; ) {
            int n = Math.min(all.length - at, 1 + random.nextInt(300));
            capture.append(all, at, n);
            at += n;
        }
        OutputCapture.Captured result = capture.result();
        org.junit.jupiter.api.Assertions.assertArrayEquals(java.util.Arrays.copyOf(all, 500), result.head());
        org.junit.jupiter.api.Assertions.assertArrayEquals(java.util.Arrays.copyOfRange(all, 4500, 5000), result.tail());
        assertEquals(5000, result.totalBytes());
        assertTrue(result.truncated());
    }
}

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
}

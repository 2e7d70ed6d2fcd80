package dev.nixexec.sandbox;

import java.nio.charset.StandardCharsets;

/**
 * Keeps at most {@code limit} bytes of a stream: all of it when it fits, otherwise its first and
 * last halves. Memory is bounded by the limit however much is written, and grows with what is
 * written: a run that prints a line does not allocate (and zero) the whole limit.
 */
public final class OutputCapture {

    private static final byte[] NONE = new byte[0];

    private final int headLimit;
    private final int tailLimit;
    private byte[] head = NONE;
    /** A ring of {@code tailLimit} bytes, made once the head is full. */
    private byte[] tail = NONE;
    private int headSize;
    private long total;

    public OutputCapture(long limit) {
        int max = (int) Math.min(limit, Integer.MAX_VALUE - 16);
        this.headLimit = max - max / 2;
        this.tailLimit = max / 2;
    }

    public synchronized void append(byte[] data, int offset, int length) {
        int toHead = Math.min(length, headLimit - headSize);
        if (headSize + toHead > head.length) {
            head = java.util.Arrays.copyOf(head, (int) Math.min(headLimit,
                    Math.max(headSize + toHead, Math.max(256L, 2L * head.length))));
        }
        System.arraycopy(data, offset, head, headSize, toHead);
        headSize += toHead;
        if (toHead < length && tail.length < tailLimit) {
            tail = new byte[tailLimit];
        }
        long tailWritten = total + toHead - headLimit;
        for (int i = toHead; i < length; i++) {
            if (tail.length > 0) {
                tail[(int) (tailWritten % tail.length)] = data[offset + i];
            }
            tailWritten++;
        }
        total += length;
    }

    public synchronized Captured result() {
        long tailTotal = Math.max(0, total - headLimit);
        int tailSize = (int) Math.min(tailTotal, tail.length);
        byte[] tailBytes = new byte[tailSize];
        long start = tailTotal - tailSize;
        for (int i = 0; i < tailSize; i++) {
            tailBytes[i] = tail[(int) ((start + i) % tail.length)];
        }
        byte[] headBytes = java.util.Arrays.copyOf(head, headSize);
        return new Captured(headBytes, tailBytes, total, tailTotal > tail.length);
    }

    /** What was kept: {@code head} then {@code tail}; when truncated, bytes between them were dropped. */
    public record Captured(byte[] head, byte[] tail, long totalBytes, boolean truncated) {

        public static Captured empty() {
            return new Captured(new byte[0], new byte[0], 0, false);
        }

        public long omittedBytes() {
            return totalBytes - head.length - tail.length;
        }

        /** The kept text, with a one-line mark where bytes were dropped. */
        public String text() {
            String first = new String(head, StandardCharsets.UTF_8);
            if (!truncated) {
                return first + new String(tail, StandardCharsets.UTF_8);
            }
            return first + mark() + new String(tail, StandardCharsets.UTF_8);
        }

        /** The kept bytes exactly, with the same mark as {@link #text()} where bytes were dropped. */
        public byte[] bytes() {
            byte[] mark = truncated ? mark().getBytes(StandardCharsets.UTF_8) : new byte[0];
            byte[] all = java.util.Arrays.copyOf(head, head.length + mark.length + tail.length);
            System.arraycopy(mark, 0, all, head.length, mark.length);
            System.arraycopy(tail, 0, all, head.length + mark.length, tail.length);
            return all;
        }

        private String mark() {
            return "\n[... " + omittedBytes() + " bytes truncated ...]\n";
        }
    }
}

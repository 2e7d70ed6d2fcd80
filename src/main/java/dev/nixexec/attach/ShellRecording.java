package dev.nixexec.attach;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.sandbox.TerminalSize;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one attached shell showed and was typed, as an asciicast v2 recording (a header line, then
 * one {@code [seconds, "o"|"i"|"r", data]} line per event), bounded like a job's output: the first
 * half of the budget is kept from the start, the last half from the end, and the gap between is
 * one marker event naming the bytes left out. Bytes become text with a decoder per direction that
 * carries a character split across two chunks over to the next.
 */
final class ShellRecording {

    /** One event: its time from the start, its type and its text. */
    private record Event(double seconds, String type, String data) {
        int size() {
            return data.length() + 24;
        }
    }

    private final long budget;
    private final long startNanos;
    private final Instant started;
    private final TerminalSize size;
    private final Utf8Text output = new Utf8Text();
    private final Utf8Text input = new Utf8Text();
    private final List<Event> head = new ArrayList<>();
    private final ArrayDeque<Event> tail = new ArrayDeque<>();
    private long headSize;
    private long tailSize;
    private long omittedBytes;
    private double omittedFrom = -1;

    ShellRecording(long budgetBytes, TerminalSize size, Instant started, long startNanos) {
        this.budget = budgetBytes;
        this.size = size;
        this.started = started;
        this.startNanos = startNanos;
    }

    synchronized void output(byte[] bytes, long nanos) {
        add("o", output.text(bytes), nanos);
    }

    synchronized void input(byte[] bytes, long nanos) {
        add("i", input.text(bytes), nanos);
    }

    synchronized void resize(TerminalSize to, long nanos) {
        add("r", to.columns() + "x" + to.rows(), nanos);
    }

    /** Whether part of the session was left out (the budget ran out). */
    synchronized boolean truncated() {
        return omittedBytes > 0;
    }

    /** The recording as asciicast v2 text. */
    synchronized String cast(ObjectMapper json) {
        StringBuilder out = new StringBuilder();
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("version", 2);
        header.put("width", size.columns());
        header.put("height", size.rows());
        header.put("timestamp", started.getEpochSecond());
        header.put("title", "nix-exec shell");
        line(out, json, header);
        head.forEach(e -> line(out, json, List.of(e.seconds(), e.type(), e.data())));
        if (omittedBytes > 0) {
            line(out, json, List.of(omittedFrom, "o", "\r\n[... " + omittedBytes + " bytes not recorded ...]\r\n"));
        }
        tail.forEach(e -> line(out, json, List.of(e.seconds(), e.type(), e.data())));
        return out.toString();
    }

    private void add(String type, String data, long nanos) {
        if (data.isEmpty()) {
            return;
        }
        Event event = new Event(Math.round((nanos - startNanos) / 1_000_000.0) / 1000.0, type, data);
        if (omittedBytes == 0 && tail.isEmpty() && headSize + event.size() <= budget / 2) {
            head.add(event);
            headSize += event.size();
            return;
        }
        tail.addLast(event);
        tailSize += event.size();
        while (tailSize > budget / 2 && !tail.isEmpty()) {
            Event dropped = tail.removeFirst();
            tailSize -= dropped.size();
            if (omittedBytes == 0) {
                omittedFrom = dropped.seconds();
            }
            omittedBytes += dropped.data().getBytes(StandardCharsets.UTF_8).length;
        }
    }

    /** One direction's bytes as text: the bytes of a character cut at a chunk's end wait for the next chunk. */
    private static final class Utf8Text {
        private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        private byte[] pending = new byte[0];

        String text(byte[] bytes) {
            ByteBuffer in = ByteBuffer.allocate(pending.length + bytes.length).put(pending).put(bytes).flip();
            CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
            decoder.decode(in, out, false);
            pending = new byte[in.remaining()];
            in.get(pending);
            return out.flip().toString();
        }
    }

    private static void line(StringBuilder out, ObjectMapper json, Object value) {
        try {
            out.append(json.writeValueAsString(value)).append('\n');
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

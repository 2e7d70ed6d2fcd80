package dev.nixexec.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobWaits;
import java.time.Instant;

/**
 * One line of a job's NDJSON event stream (docs/api.md, "Reading, waiting, following"):
 * {@code lifecycle} ({@code {"status"}}), {@code stdout}/{@code stderr} ({@code {"text"}}) and
 * {@code result} (the job as it ended), numbered by the job's own event sequence; or, instead of
 * the result, {@code closed} ({@code {"reason"}}) when the stream's key was revoked or expired.
 */
public record JobEventLine(String type, int sequence, Instant ts, JsonNode payload) {

    public static final String NDJSON = "application/x-ndjson";

    /** The types of line {@link #of} writes (the document's enum). */
    static final java.util.List<String> TYPES = java.util.List.of("lifecycle", "stdout", "stderr", "result", JobWaits.CLOSED);

    private static final ObjectMapper JSON = new ObjectMapper();

    static JobEventLine of(JobEvents.Event event) {
        Instant ts = event.at();
        return switch (event.kind()) {
            case "status" -> new JobEventLine("lifecycle", event.seq(), ts, text("status", event.data()));
            case "stdout", "stderr" -> new JobEventLine(event.kind(), event.seq(), ts, text("text", event.data()));
            case JobWaits.CLOSED -> new JobEventLine(JobWaits.CLOSED, event.seq(), ts, text("reason", event.data()));
            default -> new JobEventLine("result", event.seq(), ts, job(event.data()));
        };
    }

    private static JsonNode text(String field, String value) {
        return JsonNodeFactory.instance.objectNode().put(field, value);
    }

    private static JsonNode job(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            // the service wrote it a moment ago
            throw new IllegalStateException("a job that is not JSON", e);
        }
    }
}

package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Follows a job's NDJSON event stream ({@code GET /v1/jobs/{id}/events}, docs/api.md) to its
 * {@code result}. A stream that breaks is resumed after the last event seen
 * ({@code Last-Event-ID}), so every event arrives once and in order.
 */
final class EventFollower {

    /** What to do with each event line, in order. */
    interface Handler {
        void event(JsonNode event);
    }

    private static final int ATTEMPTS = 5;

    private final Server server;

    EventFollower(Server server) {
        this.server = server;
    }

    /** Follows job {@code id} from after event {@code after}; answers the job as it ended. */
    JsonNode follow(String id, int after, Handler handler) {
        int seen = after;
        int failures = 0;
        while (true) {
            Map<String, String> headers = seen > 0 ? Map.of("Last-Event-ID", Integer.toString(seen)) : Map.of();
            InputStream response;
            try {
                response = server.stream("/v1/jobs/" + Server.segment(id) + "/events", "application/x-ndjson", headers);
            } catch (CommandFailure e) {
                if (e.exit != Exit.UNREACHABLE || ++failures >= ATTEMPTS) {
                    throw e;
                }
                pause(failures);
                continue;
            }
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(response, StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode event = Server.JSON.readTree(line);
                    int sequence = event.path("sequence").asInt();
                    boolean result = "result".equals(event.path("type").asText());
                    // a stream resumed at or past its end sends the result again: the end, once
                    if (sequence <= seen && !result) {
                        continue;
                    }
                    seen = Math.max(seen, sequence);
                    failures = 0;
                    handler.event(event);
                    if (result) {
                        return event.path("payload");
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // resumed below
            }
            if (++failures >= ATTEMPTS) {
                throw new CommandFailure(Exit.UNREACHABLE, "the event stream of job " + id + " from " + server.base
                        + " broke " + ATTEMPTS + " times; resume with: nix-exec logs " + id + " --since " + seen);
            }
            pause(failures);
        }
    }

    private static void pause(int failures) {
        try {
            Thread.sleep(200L * failures);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailure(Exit.CANCELLED, "interrupted");
        }
    }
}

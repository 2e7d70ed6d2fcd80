package dev.nixexec.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * One line of {@code enter --json} (docs/cli.md, "--json"): the shape of a job's event lines,
 * {@code lifecycle} ({@code {"status":"attached"}}), {@code stdout} ({@code {"text"}}: a terminal
 * merges stdout and stderr) and last {@code result} (the shell's end: its {@code exit_code} when
 * it exited, and always the connection's {@code close_code} and {@code reason}, as in the
 * {@code shell_ended} audit event), numbered from 1 by this command.
 */
record ShellEventLine(String type, int sequence, Instant ts, ObjectNode payload) {

    static ShellEventLine attached(int sequence) {
        return new ShellEventLine("lifecycle", sequence, now(), JsonNodeFactory.instance.objectNode().put("status", "attached"));
    }

    static ShellEventLine stdout(int sequence, String text) {
        return new ShellEventLine("stdout", sequence, now(), JsonNodeFactory.instance.objectNode().put("text", text));
    }

    static ShellEventLine result(int sequence, ShellClosed end) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        end.exitCode().ifPresent(code -> payload.put("exit_code", code));
        payload.put("close_code", end.code()).put("reason", end.reason());
        return new ShellEventLine("result", sequence, now(), payload);
    }

    // microseconds, as the server's event lines have them
    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }

    /** The line's JSON, {@code ts} as an ISO-8601 UTC instant as the server writes it. */
    ObjectNode json() {
        ObjectNode line = JsonNodeFactory.instance.objectNode().put("type", type).put("sequence", sequence).put("ts", ts.toString());
        line.set("payload", payload);
        return line;
    }
}

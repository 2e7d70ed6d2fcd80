package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A job the command started and now follows as if it were the program: its stdout and stderr as
 * the command's own (or NDJSON with {@code --json}), its exit code as the command's. Ctrl-C
 * cancels the job.
 */
final class JobRun {

    private final Server server;
    private final Terminal terminal;

    JobRun(Server server, Terminal terminal) {
        this.server = server;
        this.terminal = terminal;
    }

    int follow(String id, boolean json) {
        return exit(followToEnd(id, json), terminal.err());
    }

    /** As {@link #follow}, answering the ended job instead of its exit code. */
    JsonNode followToEnd(String id, boolean json) {
        AtomicBoolean ended = new AtomicBoolean();
        Thread cancel = new Thread(() -> {
            if (!ended.get()) {
                try {
                    server.post("/v1/jobs/" + Server.segment(id) + "/cancel", java.util.Map.of());
                    terminal.err().println("nix-exec: job " + Printable.line(id) + " cancelled");
                } catch (CommandFailure e) {
                    terminal.err().println("nix-exec: could not cancel job " + Printable.line(id) + ": " + e.getMessage());
                }
            }
        });
        Runtime.getRuntime().addShutdownHook(cancel);
        JsonNode job;
        try {
            job = new EventFollower(server).follow(id, 0, event -> {
            if (json) {
                ClientOptions.printJson(terminal.out(), event);
                return;
            }
            switch (event.path("type").asText()) {
                case "stdout" -> write(terminal.out(), event);
                case "stderr" -> write(terminal.err(), event);
                default -> { }
            }
            });
        } finally {
            // only a signal while following cancels; a failure to follow leaves the job running
            ended.set(true);
            try {
                Runtime.getRuntime().removeShutdownHook(cancel);
            } catch (IllegalStateException e) {
                // already exiting (Ctrl-C): the hook cancels the job and says so, and the JVM ends
                // once it has; this thread says nothing more meanwhile
                while (true) {
                    java.util.concurrent.locks.LockSupport.park();
                }
            }
        }
        return job;
    }

    private static void write(PrintStream stream, JsonNode event) {
        stream.writeBytes(event.path("payload").path("text").asText().getBytes(StandardCharsets.UTF_8));
        stream.flush();
    }

    /** The job's end as an exit code: the program's own, or one of {@link Exit} saying why there is none. */
    static int exit(JsonNode job, PrintStream err) {
        String id = Printable.line(job.path("id").asText());
        return switch (job.path("status").asText()) {
            case "succeeded" -> 0;
            case "failed" -> job.path("exit_code").isInt() ? job.path("exit_code").asInt() & 0xff : 1;
            case "timed_out" -> {
                err.println("nix-exec: job " + id + " timed out");
                yield Exit.TIMED_OUT.code;
            }
            case "cancelled" -> {
                err.println("nix-exec: job " + id + " was cancelled");
                yield Exit.CANCELLED.code;
            }
            default -> {
                JsonNode error = job.path("error");
                err.println("nix-exec: job " + id + " could not run: " + Printable.line(error.path("code").asText("error")) + ": "
                        + Printable.line(error.path("message").asText()));
                yield Exit.COULD_NOT_RUN.code;
            }
        };
    }
}

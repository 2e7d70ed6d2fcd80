package dev.nixexec.cli;

import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "logs", mixinStandardHelpOptions = true, description = "Follow a job's events until it ends: its output, or NDJSON events with --json.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} logs JOB_ID", "  ${ROOT-COMMAND-NAME} logs --json --since 3 JOB_ID"})
final class LogsCommand extends ClientCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "the job's id")
    String job;

    @Option(names = "--since", paramLabel = "SEQUENCE", description = "resume after this event's sequence number")
    int since;

    @Override
    int run(Server server) {
        if (since < 0) {
            throw new CommandFailure(Exit.USAGE, "logs: --since must be 0 or more");
        }
        new EventFollower(server).follow(job, since, event -> {
            if (client.json) {
                ClientOptions.printJson(terminal.out(), event);
                return;
            }
            String text = event.path("payload").path("text").asText();
            switch (event.path("type").asText()) {
                case "stdout" -> terminal.out().writeBytes(Printable.output(text).getBytes(StandardCharsets.UTF_8));
                case "stderr" -> terminal.err().writeBytes(Printable.output(text).getBytes(StandardCharsets.UTF_8));
                case "lifecycle" -> terminal.err().println("nix-exec: job " + Printable.line(job) + " "
                        + Printable.line(event.path("payload").path("status").asText()));
                default -> { }
            }
            terminal.out().flush();
        });
        return Exit.OK.code;
    }
}

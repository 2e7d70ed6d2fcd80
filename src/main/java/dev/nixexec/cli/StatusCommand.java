package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "status", mixinStandardHelpOptions = true, description = "Show a session: status, environment, files' writability, expiry.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} status work", "  ${ROOT-COMMAND-NAME} status --json work"})
final class StatusCommand extends ClientCommand {

    @Parameters(index = "0", paramLabel = "SESSION", description = "the session's id or name")
    String session;

    @Override
    int run(Server server) {
        JsonNode view = server.get("/v1/sessions/" + Server.segment(session));
        if (client.json) {
            ClientOptions.printJson(terminal.out(), view);
            return Exit.OK.code;
        }
        for (Map.Entry<String, JsonNode> field : view.properties()) {
            JsonNode value = field.getValue();
            if (value.isNull() || value.isContainerNode() && value.isEmpty()) {
                continue;
            }
            terminal.out().println(Printable.line(field.getKey()) + ": " + Printable.line(shown(value)));
        }
        terminal.out().flush();
        return Exit.OK.code;
    }

    /** A list as nixo showed it, comma-separated ({@code jq, ripgrep}); an object's fields as {@code name=value}. */
    private static String shown(JsonNode value) {
        if (value.isValueNode()) {
            return value.asText();
        }
        java.util.List<String> parts = new java.util.ArrayList<>();
        if (value.isArray()) {
            value.forEach(element -> parts.add(shown(element)));
        } else {
            value.fields().forEachRemaining(f -> parts.add(f.getKey() + "=" + shown(f.getValue())));
        }
        return String.join(", ", parts);
    }
}

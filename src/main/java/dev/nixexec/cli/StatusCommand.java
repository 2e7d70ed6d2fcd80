package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "status", description = "Show a session: status, environment, files' writability, expiry.")
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
        for (Iterator<Map.Entry<String, JsonNode>> fields = view.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            if (value.isNull()) {
                continue;
            }
            terminal.out().println(Printable.line(field.getKey()) + ": "
                    + Printable.line(value.isValueNode() ? value.asText() : value.toString()));
        }
        terminal.out().flush();
        return Exit.OK.code;
    }
}

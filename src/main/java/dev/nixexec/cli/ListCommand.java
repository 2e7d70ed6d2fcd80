package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "list", mixinStandardHelpOptions = true, description = "List the tenant's live sessions, newest first.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} list", "  ${ROOT-COMMAND-NAME} list --json | jq -r '.[].name'"})
final class ListCommand extends ClientCommand {

    @Option(names = "--names", description = "only the names (the id of a session without one), one a line: for scripts and completion")
    boolean names;

    @Override
    int run(Server server) {
        JsonNode sessions = server.get("/v1/sessions");
        if (names) {
            sessions.forEach(s -> terminal.out().println(Printable.line(s.path("name").asText(s.path("id").asText()))));
            terminal.out().flush();
            return Exit.OK.code;
        }
        if (client.json) {
            ClientOptions.printJson(terminal.out(), sessions);
            return Exit.OK.code;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", "NAME", "STATUS", "ENVIRONMENT", "EXPIRES"));
        for (JsonNode session : sessions) {
            rows.add(List.of(session.path("id").asText(), session.path("name").asText("-"), session.path("status").asText(),
                    environment(session), session.path("expires_at").asText("-")));
        }
        Table.print(terminal.out(), rows);
        return Exit.OK.code;
    }

    static String environment(JsonNode session) {
        if (!session.path("profile").asText("").isEmpty()) {
            return "profile " + session.path("profile").asText();
        }
        List<String> packages = new ArrayList<>();
        session.path("packages").forEach(p -> packages.add(p.asText()));
        return packages.isEmpty() ? "-" : String.join(",", packages);
    }
}

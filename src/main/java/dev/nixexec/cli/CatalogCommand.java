package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "catalog", description = "List the agents and tools a session can name (their attribute goes in --with).")
final class CatalogCommand extends ClientCommand {

    @Option(names = "--filter", paramLabel = "TEXT", description = "entries whose name, description or category contains it")
    String filter;

    @Option(names = "--grouped", description = "agents grouped by category")
    boolean grouped;

    @Override
    int run(Server server) {
        JsonNode catalog = server.get("/v1/catalog" + Server.query(Map.of("grouped", grouped, "filter", filter == null ? "" : filter)));
        if (client.json) {
            ClientOptions.printJson(terminal.out(), catalog);
            return Exit.OK.code;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("KIND", "NAME", "ATTRIBUTE", "DESCRIPTION"));
        if (grouped) {
            for (Iterator<Map.Entry<String, JsonNode>> groups = catalog.path("agent_categories").fields(); groups.hasNext(); ) {
                Map.Entry<String, JsonNode> group = groups.next();
                add(rows, "agent/" + group.getKey(), group.getValue());
            }
        } else {
            add(rows, "agent", catalog.path("agents"));
        }
        add(rows, "tool", catalog.path("tools"));
        Table.print(terminal.out(), rows);
        return Exit.OK.code;
    }

    private static void add(List<List<String>> rows, String kind, JsonNode entries) {
        for (JsonNode entry : entries) {
            rows.add(List.of(kind, entry.path("name").asText(), entry.path("attribute").asText(), entry.path("description").asText()));
        }
    }
}

package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "catalog", mixinStandardHelpOptions = true, description = "List the agents and tools a session can name (their attribute goes in --with).",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} catalog --filter review", "  ${ROOT-COMMAND-NAME} catalog --json | jq '.agents | keys'"})
final class CatalogCommand extends ClientCommand {

    @Option(names = "--filter", paramLabel = "TEXT", description = "entries whose name, description or category contains it")
    String filter;

    @Option(names = "--grouped", description = "agents grouped by category")
    boolean grouped;

    @Override
    int run(Server server) {
        JsonNode catalog = server.get("/v1/catalog" + Server.query(Map.of("grouped", grouped, "filter", filter == null ? "" : filter)));
        if (client.json) {
            ClientOptions.printJson(terminal.out(), nixoShape(catalog));
            return Exit.OK.code;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("KIND", "NAME", "ATTRIBUTE", "DESCRIPTION"));
        if (grouped) {
            for (Map.Entry<String, JsonNode> group : catalog.path("agent_categories").properties()) {
                add(rows, "agent/" + group.getKey(), group.getValue());
            }
        } else {
            add(rows, "agent", catalog.path("agents"));
        }
        add(rows, "tool", catalog.path("tools"));
        Table.print(terminal.out(), rows);
        return Exit.OK.code;
    }

    /**
     * The catalog as nixo printed it: entries keyed by name ({@code .agents | keys} gives the names),
     * {@code agentCategories} for the grouped form. The REST answer keeps the API's lists and
     * snake_case (docs/api.md#catalog); this is the command line's own shape.
     */
    static ObjectNode nixoShape(JsonNode catalog) {
        ObjectNode shaped = object();
        if (catalog.has("agent_categories")) {
            ObjectNode categories = shaped.putObject("agentCategories");
            catalog.path("agent_categories").fields().forEachRemaining(group ->
                    categories.set(group.getKey(), byName(group.getValue())));
        } else {
            shaped.set("agents", byName(catalog.path("agents")));
        }
        shaped.set("tools", byName(catalog.path("tools")));
        return shaped;
    }

    private static ObjectNode byName(JsonNode entries) {
        ObjectNode named = object();
        for (JsonNode entry : entries) {
            ObjectNode fields = entry.deepCopy();
            fields.remove("name");
            named.set(entry.path("name").asText(), fields);
        }
        return named;
    }

    private static void add(List<List<String>> rows, String kind, JsonNode entries) {
        for (JsonNode entry : entries) {
            rows.add(List.of(kind, entry.path("name").asText(), entry.path("attribute").asText(), entry.path("description").asText()));
        }
    }
}

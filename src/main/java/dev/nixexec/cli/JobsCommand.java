package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "jobs", mixinStandardHelpOptions = true, description = "List the tenant's recent jobs, newest first.",
        footer = {"", "Example:", "  ${ROOT-COMMAND-NAME} jobs --status failed --limit 5"})
final class JobsCommand extends ClientCommand {

    @Option(names = "--status", paramLabel = "STATUS", description = "queued, building, running, succeeded, failed, timed_out, cancelled, error")
    String status;

    @Option(names = {"-l", "--language"}, paramLabel = "LANGUAGE", description = "only this language's jobs")
    String language;

    @Option(names = "--limit", paramLabel = "N", description = "at most N jobs (1 to 200, default 20)")
    Integer limit;

    @Option(names = "--cursor", paramLabel = "CURSOR", description = "the next page: a previous answer's next_cursor (--json)")
    String cursor;

    @Override
    int run(Server server) {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("status", status);
        query.put("language", language);
        query.put("limit", limit == null ? 20 : limit);
        query.put("cursor", cursor);
        JsonNode page = server.get("/v1/jobs" + Server.query(query));
        if (client.json) {
            ClientOptions.printJson(terminal.out(), page);
            return Exit.OK.code;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", "STATUS", "LANGUAGE", "EXIT", "CREATED"));
        for (JsonNode job : page.path("items")) {
            rows.add(List.of(job.path("id").asText(), job.path("status").asText(), job.path("language").asText(),
                    job.path("exit_code").asText("-"), job.path("created_at").asText()));
        }
        Table.print(terminal.out(), rows);
        return Exit.OK.code;
    }
}

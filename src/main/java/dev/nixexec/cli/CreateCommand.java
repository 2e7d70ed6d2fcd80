package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "create", mixinStandardHelpOptions = true, description = "Create a session and wait until its environment is built; prints its id.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} create --with jq,ripgrep --name work --network off", "  ${ROOT-COMMAND-NAME} create --profile build-install --workspace ."})
final class CreateCommand extends ClientCommand {

    @Option(names = "--with", split = ",", paramLabel = "PACKAGE", description = "nixpkgs packages, comma-separated")
    List<String> with;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "strict, offline-review, build-install, debug-network, or the tenant's own")
    String profile;

    @Option(names = "--spec", paramLabel = "FILE", description = "a spec file, YAML or JSON: {name?, packages, env?, network?, writable?}")
    Path spec;

    @Option(names = "--network", arity = "0", parameterConsumer = NetworkMode.class, paramLabel = "off|full",
            description = "off, or full: the session reaches out (if the tenant's policy allows it); bare --network is full")
    String network;

    @Option(names = {"-e", "--env"}, paramLabel = "NAME=VALUE", description = "an environment variable of every command")
    Map<String, String> env;

    @Option(names = "--name", paramLabel = "NAME", description = "a name that works where the id does")
    String name;

    @Option(names = "--agent", paramLabel = "AGENT", description = "the agent that uses it (recorded)")
    String agent;

    @Option(names = "--description", paramLabel = "TEXT", description = "what it is for (recorded)")
    String description;

    @Option(names = "--idle-ttl", paramLabel = "DURATION", description = "destroyed after this long unused, e.g. 30m")
    String idleTtl;

    @Option(names = "--workspace", paramLabel = "DIR",
            description = "local mode: mount this host directory at /workspace (inside nixexec.mcp.roots.allowed-prefixes)")
    Path workspace;

    @Option(names = "--no-wait", description = "print the id at once, while the environment builds")
    boolean noWait;

    @Override
    int run(Server server) {
        ObjectNode body = object();
        putEnvironment(body, with, profile, spec);
        putUnlessEmpty(body, "env", env);
        if (network != null) {
            body.put("network", network);
        }
        for (Map.Entry<String, String> field : Map.of("name", nonNull(name), "agent", nonNull(agent),
                "description", nonNull(description)).entrySet()) {
            if (!field.getValue().isEmpty()) {
                body.put(field.getKey(), field.getValue());
            }
        }
        if (workspace != null) {
            body.put("host_workspace", workspace.toAbsolutePath().normalize().toString());
        }
        if (idleTtl != null) {
            body.set("idle_ttl", duration(idleTtl));
        }
        JsonNode session = server.post("/v1/sessions" + (noWait ? "" : "?wait=60"), body);
        if (!noWait) {
            session = SessionBuild.await(server, session);
        }
        if (client.json) {
            ClientOptions.printJson(terminal.out(), session);
        } else {
            terminal.out().println(Printable.line(session.path("id").asText()));
            terminal.out().flush();
        }
        return SessionBuild.exit(session, terminal);
    }

    private static String nonNull(String value) {
        return value == null ? "" : value;
    }
}

package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "build", mixinStandardHelpOptions = true, description = "Build an environment ahead, so later jobs and sessions with it start at once; prints its store path.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} build --with jq,ripgrep", "  ${ROOT-COMMAND-NAME} build --profile build-install"})
final class BuildCommand extends ClientCommand {

    @Option(names = {"-l", "--language"}, paramLabel = "LANGUAGE", description = "the language it is for (default bash)")
    String language;

    @Option(names = "--with", split = ",", paramLabel = "PACKAGE", description = "nixpkgs packages, comma-separated")
    List<String> with;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "a profile's environment")
    String profile;

    @Option(names = "--spec", paramLabel = "FILE", description = "a spec file's environment, YAML or JSON")
    Path spec;

    @Option(names = "--no-wait", description = "print the build's id at once")
    boolean noWait;

    @Override
    int run(Server server) {
        ObjectNode body = object();
        if (language != null) {
            body.put("language", language);
        }
        putEnvironment(body, with, profile, spec);
        JsonNode build = server.post("/v1/environments" + (noWait ? "" : "?wait=60"), body);
        while (!noWait && "building".equals(build.path("status").asText())) {
            build = server.get("/v1/environments/" + Server.segment(build.path("id").asText()) + "?wait=60");
        }
        if (client.json) {
            ClientOptions.printJson(terminal.out(), build);
        } else {
            terminal.out().println(Printable.line(noWait ? build.path("id").asText() : build.path("store_path").asText("")));
            terminal.out().flush();
        }
        if ("failed".equals(build.path("status").asText())) {
            JsonNode error = build.path("error");
            terminal.err().println("nix-exec: build " + Printable.line(build.path("id").asText()) + " failed: "
                    + Printable.line(error.path("code").asText("error"))
                    + ": " + Printable.line(error.path("message").asText()));
            return Exit.COULD_NOT_RUN.code;
        }
        return Exit.OK.code;
    }
}

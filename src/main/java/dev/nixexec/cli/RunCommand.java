package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "run", mixinStandardHelpOptions = true, description = "Run CODE as one job: its stdout, stderr and exit code are this command's.",
        footer = {"", "Examples:", "  ${ROOT-COMMAND-NAME} run -l python 'print(6*7)'", "  echo 'echo hi' | ${ROOT-COMMAND-NAME} run -l bash -"})
final class RunCommand extends ClientCommand {

    @Option(names = {"-l", "--language"}, required = true, paramLabel = "LANGUAGE",
            description = "python, bash, javascript, typescript, ruby, go, rust, c, ... (GET /v1/languages)")
    String language;

    @Option(names = "--with", split = ",", paramLabel = "PACKAGE", description = "nixpkgs packages, comma-separated")
    List<String> with;

    @Option(names = "--profile", paramLabel = "PROFILE", description = "run under a profile: strict, offline-review, build-install, debug-network, or the tenant's own")
    String profile;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "e.g. 30s, 5m, or seconds")
    String timeout;

    @Option(names = {"-e", "--env"}, paramLabel = "NAME=VALUE", description = "an environment variable of the job")
    Map<String, String> env;

    @Option(names = "--network", arity = "0", parameterConsumer = NetworkMode.class, paramLabel = "off|full",
            description = "off, or full: the job reaches out (if the tenant's policy allows it); bare --network is full")
    String network;

    @Option(names = {"-i", "--stdin"}, description = "pass this command's standard input to the program")
    boolean stdin;

    @Option(names = "--out", paramLabel = "DIR",
            description = "save the job's artifacts (what it left in /workspace/out) in DIR, made if missing")
    Path out;

    @Parameters(index = "0", paramLabel = "CODE", description = "the program's source; - reads it from standard input")
    String code;

    @Override
    int run(Server server) {
        if (code.equals("-") && stdin) {
            throw new CommandFailure(Exit.USAGE, "run: CODE - and --stdin both read standard input");
        }
        if (out != null) {
            ArtifactDownload.check(out);
        }
        ObjectNode body = object().put("language", language).put("code", code.equals("-") ? readStdin() : code);
        putUnlessEmpty(body, "packages", with);
        putUnlessEmpty(body, "env", env);
        if (profile != null) {
            body.put("profile", profile);
        }
        if (timeout != null) {
            body.set("timeout", duration(timeout));
        }
        if (network != null) {
            body.put("network", network);
        }
        if (stdin) {
            body.put("stdin", readStdin());
        }
        String id = server.post("/v1/jobs", body).path("id").asText();
        JsonNode job = new JobRun(server, terminal).followToEnd(id, client.json);
        if (out != null) {
            new ArtifactDownload(server, out).save(server.get("/v1/jobs/" + Server.segment(id)).path("artifacts"));
        }
        return JobRun.exit(job, terminal.err());
    }
}

package dev.nixexec.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "exec", mixinStandardHelpOptions = true, description = "Run a command in a session: its stdout, stderr and exit code are this command's.",
        footer = {"", "Examples:", "  echo '{\"a\": 5}' | ${ROOT-COMMAND-NAME} exec -i work -- jq .a", "  ${ROOT-COMMAND-NAME} exec work --code 'print(6*7)' -l python"})
final class ExecCommand extends ClientCommand {

    @Parameters(index = "0", paramLabel = "SESSION", description = "the session's id or name")
    String session;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "the program and its arguments (after --), run without a shell")
    List<String> command;

    @Option(names = {"-l", "--language"}, paramLabel = "LANGUAGE", description = "with --code: the interpreter (default bash)")
    String language;

    @Option(names = {"-c", "--code"}, paramLabel = "CODE", description = "a script instead of CMD")
    String code;

    @Option(names = {"-e", "--env"}, paramLabel = "NAME=VALUE", description = "an environment variable (over the session's)")
    Map<String, String> env;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "e.g. 30s, 5m, or seconds")
    String timeout;

    @Option(names = {"-i", "--stdin"}, description = "pass this command's standard input to the program")
    boolean stdin;

    @Override
    int run(Server server) {
        boolean hasCommand = command != null && !command.isEmpty();
        if (hasCommand == (code != null)) {
            throw new CommandFailure(Exit.USAGE, "exec: give either -- CMD... or --code CODE");
        }
        if (language != null && code == null) {
            throw new CommandFailure(Exit.USAGE, "exec: --language goes with --code");
        }
        ObjectNode body = object();
        if (hasCommand) {
            putUnlessEmpty(body, "command", command);
        } else {
            body.put("language", language == null ? "bash" : language).put("code", code);
        }
        putUnlessEmpty(body, "env", env);
        if (timeout != null) {
            body.set("timeout", duration(timeout));
        }
        if (stdin) {
            body.put("stdin", readStdin());
        }
        String id = server.post("/v1/sessions/" + Server.segment(session) + "/exec", body).path("id").asText();
        return new JobRun(server, terminal).follow(id, client.json);
    }
}

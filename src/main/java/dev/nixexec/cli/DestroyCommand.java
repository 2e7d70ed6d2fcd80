package dev.nixexec.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "destroy", mixinStandardHelpOptions = true, description = "Destroy a session: its running commands are cancelled, its files deleted.",
        footer = {"", "Example:", "  ${ROOT-COMMAND-NAME} destroy work"})
final class DestroyCommand extends ClientCommand {

    @Parameters(index = "0", paramLabel = "SESSION", description = "the session's id or name")
    String session;

    @Override
    int run(Server server) {
        // by id from here on: once destroyed, its name no longer finds it
        String id = server.get("/v1/sessions/" + Server.segment(session)).path("id").asText();
        server.delete("/v1/sessions/" + Server.segment(id));
        if (client.json) {
            ClientOptions.printJson(terminal.out(), server.get("/v1/sessions/" + Server.segment(id)));
        }
        return Exit.OK.code;
    }
}

package dev.nixexec.cli;

import io.quarkus.runtime.annotations.QuarkusMain;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The {@code nix-exec} command (docs/cli.md): with no command, an MCP server on stdin/stdout
 * ({@link StdioServer}); {@code serve} starts the HTTP service; every other command is a client
 * of a running server and returns before Quarkus would start, so a client command costs a JVM
 * start, not a service start. The jar run bare, without the launcher script (as Quarkus' dev mode
 * and integration tests run it), serves.
 */
@QuarkusMain
@Command(name = "nix-exec", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"Runs untrusted code in Nix environments and bubblewrap sandboxes: the service, and its client.",
                "With no command: an MCP server on stdin/stdout (relayed to --server URL or $NIXEXEC_SERVER, else to a"
                        + " local-mode service), taking serve's flags, e.g. nix-exec -log-level debug -timeout 60s."},
        subcommands = {RunCommand.class, CreateCommand.class, ExecCommand.class, EnterCommand.class, ListCommand.class,
                StatusCommand.class, DestroyCommand.class, BuildCommand.class, CatalogCommand.class, JobsCommand.class,
                LogsCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Client commands take --server URL ($NIXEXEC_SERVER), --key KEY ($NIXEXEC_KEY) and --json,",
                "before or after the command's name. ${ROOT-COMMAND-NAME} help COMMAND (or COMMAND --help) shows its options.",
                "", "Examples:", "  ${ROOT-COMMAND-NAME} run -l python 'print(6*7)'",
                "  ${ROOT-COMMAND-NAME} --server http://127.0.0.1:8080 create --with jq --name work",
                "  ${ROOT-COMMAND-NAME} exec work -- jq --version"})
public final class NixExecCommand implements Callable<Integer> {

    /** The name the launcher was called by: nixo's users keep theirs ({@code target/nixo}, {@code bin/nixo}). */
    static final String NIXO = "nixo";

    /** Set by the launcher script (src/main/launcher/nix-exec): run as the command, not as the bare jar. */
    static final String LAUNCHER = "dev.nixexec.launcher";

    /**
     * {@code --server}, {@code --key} and {@code --json} given before the command's name; with no
     * command, {@code --server} and {@code --key} are the stdio server's upstream.
     */
    @Mixin
    ClientOptions global;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String... args) {
        CommandLine line = commandLine();
        int code = line.execute(args);
        CommandLine.ParseResult parsed = line.getParseResult();
        boolean served = parsed != null && !parsed.isUsageHelpRequested() && !parsed.isVersionHelpRequested()
                && (!parsed.hasSubcommand() && System.getProperty(LAUNCHER) == null
                        || parsed.hasSubcommand() && parsed.subcommand().commandSpec().name().equals("serve")
                        && !parsed.subcommand().isUsageHelpRequested() && !parsed.subcommand().isVersionHelpRequested());
        if (!served || code != Exit.OK.code) {
            // the service ends itself (and in dev mode is restarted through main): only a client exits here
            System.exit(code);
        }
    }

    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new NixExecCommand());
        if (NIXO.equals(System.getenv("NIXEXEC_COMMAND_NAME"))) {
            line.setCommandName(NIXO);
        }
        ServeCommand.addFlags(line.getCommandSpec());
        line.addSubcommand("serve", new CommandLine(ServeCommand.spec()));
        line.getSubcommands().get("help").getCommandSpec().usageMessage().footer("", "Examples:",
                "  ${ROOT-COMMAND-NAME} help create", "  ${ROOT-COMMAND-NAME} create --help");
        java.util.Map<String, String> exits = new java.util.LinkedHashMap<>();
        for (Exit exit : Exit.values()) {
            exits.put(Integer.toString(exit.code), exit.meaning);
        }
        line.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes (run and exec: the program's own; otherwise):%n").exitCodeList(exits);
        line.setExecutionExceptionHandler((error, failed, parsed) -> {
            PrintWriter err = failed.getErr();
            if (error instanceof CommandFailure failure) {
                err.println("nix-exec: " + failure.getMessage());
                err.flush();
                return failure.exit.code;
            }
            err.println("nix-exec: " + failed.getCommandName() + " failed: " + Printable.line(String.valueOf(error)));
            err.flush();
            return Exit.SERVER_ERROR.code;
        });
        line.setParameterExceptionHandler((error, args) -> {
            PrintWriter err = error.getCommandLine().getErr();
            String command = error.getCommandLine().getCommandSpec().qualifiedName();
            err.println("nix-exec: " + Printable.line(error.getMessage()) + " (see " + command + " --help)");
            err.flush();
            return Exit.USAGE.code;
        });
        return line;
    }

    /** No command: the MCP stdio server, or, for the bare jar, the service. */
    @Override
    public Integer call() throws InterruptedException {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        if (System.getProperty(LAUNCHER) == null) {
            java.util.List<String> serve = new java.util.ArrayList<>(java.util.List.of("serve"));
            serve.addAll(parsed.originalArgs());
            return commandLine().execute(serve.toArray(String[]::new));
        }
        if (global.json) {
            throw new CommandFailure(Exit.USAGE, "--json: give a command; with none, nix-exec is an MCP server and answers in MCP");
        }
        Map<String, String> settings = ServeCommand.properties(parsed, "");
        Map<String, String> file = ServeCommand.checkConfigFile(settings);
        java.util.Set<String> clientOptions = java.util.Set.of("--server", "--key", "--json");
        return StdioServer.run(settings, file, parsed.matchedOptions().stream().map(o -> o.shortestName())
                .filter(name -> !clientOptions.contains(name)).toList(), global);
    }
}

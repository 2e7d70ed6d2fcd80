package dev.nixexec.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "completion", mixinStandardHelpOptions = true, description = "Print bash completion for nix-exec: source <(nix-exec completion)",
        footer = {"", "Example:", "  source <(${ROOT-COMMAND-NAME} completion)"})
final class CompletionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        System.out.print(AutoComplete.bash("nix-exec", spec.root().commandLine()));
        System.out.flush();
        return Exit.OK.code;
    }
}

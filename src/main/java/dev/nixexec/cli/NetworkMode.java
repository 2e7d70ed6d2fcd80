package dev.nixexec.cli;

import java.util.Stack;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code --network [off|full]}, nixo's spelling: the word after it is taken only when it is
 * {@code off} or {@code full}, so a bare {@code --network} (full) may stand before a command's
 * CODE without swallowing it.
 */
final class NetworkMode implements IParameterConsumer {

    static final String FULL = "full";
    static final String OFF = "off";

    @Override
    public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
        boolean word = !args.isEmpty() && (args.peek().equals(OFF) || args.peek().equals(FULL));
        if (!word && !args.isEmpty() && !args.peek().startsWith("-") && commandSpec.positionalParameters().isEmpty()) {
            // a command without operands (create): the word can only have been meant as the mode
            throw new ParameterException(commandSpec.commandLine(), "--network: '" + args.peek()
                    + "' is neither off nor full");
        }
        argSpec.setValue(word ? args.pop() : FULL);
    }
}

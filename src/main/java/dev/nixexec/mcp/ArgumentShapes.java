package dev.nixexec.mcp;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import io.quarkiverse.mcp.server.ToolCallException;
import io.quarkiverse.mcp.server.ToolInputGuardrail;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Before the extension (1.13) converts a tool's arguments, which refuses the first of the wrong
 * type alone ("Invalid argument [timeout] - unable to convert value"): an optional argument of the
 * wrong type is left out, so that the tool runs its own checks and refuses it together with every
 * other problem of the call ({@link KnownArguments#problems}, read from the call as sent). A required
 * one cannot be left out: the call is refused here, with every problem of its arguments' shapes.
 */
@ApplicationScoped
public class ArgumentShapes implements ToolInputGuardrail {

    private final KnownArguments known;

    public ArgumentShapes(KnownArguments known) {
        this.known = known;
    }

    @Override
    public void apply(ToolInputContext context) {
        JsonObject arguments = context.getArguments();
        if (arguments == null) {
            return;
        }
        List<FieldError> problems = known.shapeProblems(arguments, context.getTool());
        Set<String> wrong = problems.stream().filter(p -> !p.message().equals("unknown argument"))
                .map(p -> p.field().split("[.\\[]", 2)[0]).collect(Collectors.toSet());
        if (wrong.isEmpty()) {
            return;
        }
        boolean required = context.getTool().arguments().stream()
                .anyMatch(argument -> argument.required() && wrong.contains(argument.name()));
        if (required) {
            throw new ToolCallException(new InvalidRequestException(problems, false).getMessage().replace('\n', ' '));
        }
        JsonObject rest = arguments.copy();
        wrong.forEach(rest::remove);
        context.setArguments(rest);
    }
}

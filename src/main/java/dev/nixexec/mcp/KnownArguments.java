package dev.nixexec.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.JsonShape;
import dev.nixexec.refusal.UntrustedText;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.ToolManager;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Refuses a tool call with an argument the tool does not declare, as REST refuses an unknown
 * field: a misspelt {@code timeuot} would otherwise be dropped and the run go ahead on the default;
 * with every argument of the wrong type ({@link ArgumentShapes} keeps them from the extension, which
 * would name only the first) and every string that is not text, as REST checks a body's
 * ({@link UntrustedText}): NUL, lone surrogates, control characters in labels; all in one refusal. Read from the call's raw message: the extension (1.13)
 * hands a tool its declared arguments only, and its input guardrails fail on a call that leaves
 * {@code arguments} out.
 */
@ApplicationScoped
public class KnownArguments {

    private static final int MAX_NAME = 64;

    private final ToolManager tools;
    private final ObjectMapper json;
    private final JsonShape shape;

    public KnownArguments(ToolManager tools, ObjectMapper json) {
        this.tools = tools;
        this.json = json;
        this.shape = new JsonShape(json);
    }

    void check(RawMessage message) {
        List<FieldError> problems = problems(message);
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems, false);
        }
    }

    /**
     * Every problem of the call's arguments at once: those the tool does not declare, those of the
     * wrong type ({@link JsonShape}: {@code "timeout": "7x"} where a number of seconds belongs), and
     * strings that are not text.
     */
    List<FieldError> problems(RawMessage message) {
        JsonObject params = message.asJsonObject().getJsonObject("params");
        if (params == null || !(params.getValue("arguments") instanceof JsonObject arguments)) {
            return List.of();
        }
        List<FieldError> problems = new ArrayList<>(shapeProblems(arguments, tools.getTool(params.getString("name"))));
        problems.addAll(UntrustedText.problems(plain(arguments)));
        return problems;
    }

    /** The arguments the tool does not declare, and those of the wrong type for their declaration. */
    List<FieldError> shapeProblems(JsonObject arguments, ToolManager.ToolInfo tool) {
        Map<String, ToolManager.ToolArgument> declared = tool.arguments().stream()
                .collect(Collectors.toMap(ToolManager.ToolArgument::name, argument -> argument));
        List<FieldError> problems = new ArrayList<>();
        for (String name : arguments.fieldNames().stream().sorted().toList()) {
            ToolManager.ToolArgument argument = declared.get(name);
            if (argument == null) {
                problems.add(new FieldError(printable(name), "unknown argument"));
            } else {
                problems.addAll(shape.problems(json.valueToTree(plain(arguments.getValue(name))),
                        json.constructType(argument.type()), name));
            }
        }
        return problems;
    }

    /** Vert.x's objects and arrays as the maps and lists they hold, at every level. */
    private static Object plain(Object value) {
        return switch (value) {
            case JsonObject object -> plain(object.getMap());
            case JsonArray array -> plain(array.getList());
            case Map<?, ?> map -> {
                Map<Object, Object> members = new LinkedHashMap<>();
                map.forEach((name, member) -> members.put(name, plain(member)));
                yield members;
            }
            case List<?> list -> list.stream().map(KnownArguments::plain).toList();
            case null, default -> value;
        };
    }

    private static String printable(String name) {
        String shown = name.replaceAll("\\p{Cntrl}", "?");
        return shown.length() <= MAX_NAME ? shown : shown.substring(0, MAX_NAME) + "…";
    }
}

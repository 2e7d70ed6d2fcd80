package dev.nixexec.mcp;

import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.UntrustedText;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.ToolManager;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Refuses a tool call with an argument the tool does not declare, as REST refuses an unknown
 * field: a misspelt {@code timeuot} would otherwise be dropped and the run go ahead on the default.
 * Then every string of the arguments as REST checks a body's ({@link UntrustedText}): NUL, lone
 * surrogates, control characters in labels. Read from the call's raw message: the extension (1.13)
 * hands a tool its declared arguments only, and its input guardrails fail on a call that leaves
 * {@code arguments} out.
 */
@ApplicationScoped
public class KnownArguments {

    private static final int MAX_NAME = 64;

    private final ToolManager tools;

    public KnownArguments(ToolManager tools) {
        this.tools = tools;
    }

    void check(RawMessage message) {
        JsonObject params = message.asJsonObject().getJsonObject("params");
        if (params == null || !(params.getValue("arguments") instanceof JsonObject arguments)) {
            return;
        }
        ToolManager.ToolInfo tool = tools.getTool(params.getString("name"));
        Set<String> known = tool.arguments().stream().map(ToolManager.ToolArgument::name).collect(Collectors.toSet());
        List<FieldError> unknown = arguments.fieldNames().stream().filter(name -> !known.contains(name)).sorted()
                .map(name -> new FieldError(printable(name), "unknown argument")).toList();
        if (!unknown.isEmpty()) {
            throw new InvalidRequestException(unknown, false);
        }
        List<FieldError> untrusted = UntrustedText.problems(plain(arguments));
        if (!untrusted.isEmpty()) {
            throw new InvalidRequestException(untrusted, false);
        }
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

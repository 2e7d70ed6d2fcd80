package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** A command that talks to a server: {@link #run(Server)} answers the exit code. */
abstract class ClientCommand implements Callable<Integer> {

    @Mixin
    ClientOptions client;

    @ParentCommand
    NixExecCommand root;

    final Terminal terminal = Terminal.ofProcess();

    @Override
    public final Integer call() {
        if (root != null) {
            client.inherit(root.global);
        }
        return run(client.connect());
    }

    abstract int run(Server server);

    String readStdin() {
        try {
            return new String(terminal.in().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandFailure(Exit.USAGE, "cannot read standard input: " + e.getMessage());
        }
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** A duration as the API takes it: a number of seconds, or text such as "90s". */
    static JsonNode duration(String value) {
        return value.matches("[0-9]{1,9}") ? JsonNodeFactory.instance.numberNode(Long.parseLong(value))
                : JsonNodeFactory.instance.textNode(value);
    }

    /** A list's or a map's values as {@code field}, unless there are none. */
    static void putUnlessEmpty(ObjectNode body, String field, Object values) {
        JsonNode node = Server.JSON.valueToTree(values);
        if (node != null && !node.isEmpty()) {
            body.set(field, node);
        }
    }

    /** A spec file (YAML, or JSON, which is YAML) as the request's {@code spec} object. */
    static JsonNode spec(Path file) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        Object document;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            document = new Yaml(new SafeConstructor(options)).load(reader);
        } catch (IOException e) {
            throw new CommandFailure(Exit.USAGE, "--spec " + file + ": cannot be read: " + e.getMessage());
        } catch (YAMLException e) {
            throw new CommandFailure(Exit.USAGE, "--spec " + file + ": is not YAML or JSON: " + e.getMessage());
        }
        if (!(document instanceof Map<?, ?>)) {
            throw new CommandFailure(Exit.USAGE, "--spec " + file + ": must be a mapping such as {packages: [jq]}");
        }
        return Server.JSON.valueToTree(document);
    }

    /** The one of {@code --with}, {@code --profile}, {@code --spec} given (the server refuses two). */
    static void putEnvironment(ObjectNode body, List<String> with, String profile, Path spec) {
        putUnlessEmpty(body, "packages", with);
        if (profile != null) {
            body.put("profile", profile);
        }
        if (spec != null) {
            body.set("spec", spec(spec));
        }
    }
}

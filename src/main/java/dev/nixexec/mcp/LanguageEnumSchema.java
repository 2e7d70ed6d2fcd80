package dev.nixexec.mcp;

import dev.nixexec.nix.Language;
import io.quarkiverse.mcp.server.GlobalInputSchemaGenerator;
import io.quarkiverse.mcp.server.InputSchemaGenerator;
import io.quarkiverse.mcp.server.ToolManager;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Singleton;

/**
 * The extension's generated input schema with the language ids as an {@code enum}. The argument
 * stays a String so that an unknown language is refused by JobService, like over REST, as an
 * {@code isError} result rather than an argument-conversion failure.
 */
@Singleton
public class LanguageEnumSchema implements InputSchemaGenerator<JsonObject> {

    private final GlobalInputSchemaGenerator defaults;

    public LanguageEnumSchema(GlobalInputSchemaGenerator defaults) {
        this.defaults = defaults;
    }

    @Override
    public JsonObject generate(ToolManager.ToolInfo tool) {
        JsonObject schema = new JsonObject(defaults.generate(tool).asJson());
        JsonObject language = schema.getJsonObject("properties").getJsonObject("language");
        language.put("enum", new JsonArray(Language.ids()));
        return schema;
    }
}

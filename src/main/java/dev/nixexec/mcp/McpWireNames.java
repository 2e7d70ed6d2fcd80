package dev.nixexec.mcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.quarkiverse.mcp.server.AudioContent;
import io.quarkiverse.mcp.server.BlobResourceContents;
import io.quarkiverse.mcp.server.CompletionResponse;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.Icon;
import io.quarkiverse.mcp.server.ImageContent;
import io.quarkiverse.mcp.server.Implementation;
import io.quarkiverse.mcp.server.PromptMessage;
import io.quarkiverse.mcp.server.PromptResponse;
import io.quarkiverse.mcp.server.ResourceLink;
import io.quarkiverse.mcp.server.ResourceResponse;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * The MCP extension serialises its records with the application's ObjectMapper, whose snake_case
 * naming (the REST contract) would turn {@code isError} into {@code is_error}. MCP's own records
 * keep the protocol's camelCase names. A class has one mix-in, so this one replaces the
 * extension's ({@code @JsonInclude(NON_NULL)}, repeated here) and must run after it.
 */
@Singleton
public class McpWireNames implements ObjectMapperCustomizer {

    @JsonNaming(PropertyNamingStrategies.LowerCamelCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private interface ProtocolNames {
    }

    private static final List<Class<?>> PROTOCOL_RECORDS = List.of(ToolResponse.class, TextContent.class,
            ImageContent.class, AudioContent.class, EmbeddedResource.class, ResourceLink.class, Content.Annotations.class,
            TextResourceContents.class, BlobResourceContents.class, ResourceResponse.class, PromptResponse.class,
            PromptMessage.class, CompletionResponse.class, Icon.class, Implementation.class);

    @Override
    public int priority() {
        return MINIMUM_PRIORITY;
    }

    @Override
    public void customize(ObjectMapper mapper) {
        PROTOCOL_RECORDS.forEach(type -> mapper.addMixIn(type, ProtocolNames.class));
    }
}

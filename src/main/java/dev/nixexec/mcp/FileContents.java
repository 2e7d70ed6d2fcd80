package dev.nixexec.mcp;

import dev.nixexec.workspace.ImageBytes;
import dev.nixexec.workspace.FileContent;
import io.quarkiverse.mcp.server.BlobResourceContents;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.ImageContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;

/**
 * A workspace file or artifact as MCP content. Image content only for the raster formats model APIs
 * take (PNG, JPEG, GIF, WebP), known by their bytes, never by the name: a text file named
 * {@code fake.png} would be refused by the model's API, or worse taken for a picture. SVG is text
 * (and model APIs refuse it as an image): an embedded resource like any other text.
 */
final class FileContents {

    /** The media types a name may claim that only the bytes can confirm. */
    private static final Set<String> RASTER_IMAGES = Set.of("image/png", "image/jpeg", "image/gif", "image/webp");


    private FileContents() {
    }

    /**
     * An image as image content (of the type its bytes show); else UTF-8 text as a text resource,
     * other bytes as a base64 blob resource, under the name's media type unless that claims an
     * image the bytes are not.
     */
    static Content of(FileContent file, String uri) {
        Optional<String> image = ImageBytes.rasterType(file.content());
        if (image.isPresent()) {
            return new ImageContent(Base64.getEncoder().encodeToString(file.content()), image.get());
        }
        boolean claimsImage = RASTER_IMAGES.contains(file.contentType());
        Optional<String> text = utf8(file.content());
        if (text.isPresent()) {
            return new EmbeddedResource(new TextResourceContents(uri, text.get(),
                    claimsImage ? "text/plain" : file.contentType()));
        }
        return new EmbeddedResource(new BlobResourceContents(uri, Base64.getEncoder().encodeToString(file.content()),
                claimsImage ? "application/octet-stream" : file.contentType()));
    }

    private static Optional<String> utf8(byte[] content) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(content)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}

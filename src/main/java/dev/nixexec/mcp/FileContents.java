package dev.nixexec.mcp;

import dev.nixexec.workspace.FileContent;
import io.quarkiverse.mcp.server.BlobResourceContents;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.ImageContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final byte[] JPEG = {(byte) 0xff, (byte) 0xd8, (byte) 0xff};
    private static final byte[] GIF87 = "GIF87a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GIF89 = "GIF89a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RIFF = "RIFF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WEBP = "WEBP".getBytes(StandardCharsets.US_ASCII);

    private FileContents() {
    }

    /**
     * An image as image content (of the type its bytes show); else UTF-8 text as a text resource,
     * other bytes as a base64 blob resource, under the name's media type unless that claims an
     * image the bytes are not.
     */
    static Content of(FileContent file, String uri) {
        Optional<String> image = imageType(file.content());
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

    /** The raster image type the bytes begin with (their magic number), if any. */
    static Optional<String> imageType(byte[] bytes) {
        if (startsWith(bytes, 0, PNG)) {
            return Optional.of("image/png");
        }
        if (startsWith(bytes, 0, JPEG)) {
            return Optional.of("image/jpeg");
        }
        if (startsWith(bytes, 0, GIF87) || startsWith(bytes, 0, GIF89)) {
            return Optional.of("image/gif");
        }
        if (startsWith(bytes, 0, RIFF) && startsWith(bytes, 8, WEBP)) {
            return Optional.of("image/webp");
        }
        return Optional.empty();
    }

    private static boolean startsWith(byte[] bytes, int at, byte[] magic) {
        return bytes.length >= at + magic.length && Arrays.equals(bytes, at, at + magic.length, magic, 0, magic.length);
    }

    private static Optional<String> utf8(byte[] content) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(content)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}

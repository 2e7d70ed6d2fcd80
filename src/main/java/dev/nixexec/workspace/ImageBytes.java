package dev.nixexec.workspace;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * What a browser may show inline as a picture, decided by a file's first bytes rather than its name
 * (a text file named {@code fake.png} is not an image): PNG, JPEG, GIF and WebP only. SVG is not
 * among them: it is a document that can carry script, so neither the UI nor MCP ever passes it as one.
 */
public final class ImageBytes {

    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final byte[] JPEG = {(byte) 0xff, (byte) 0xd8, (byte) 0xff};
    private static final byte[] GIF87 = "GIF87a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GIF89 = "GIF89a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RIFF = "RIFF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WEBP = "WEBP".getBytes(StandardCharsets.US_ASCII);

    private ImageBytes() {
    }

    /** The media type of a raster image these bytes are, if they are one. */
    public static Optional<String> rasterType(byte[] bytes) {
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

    private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
        return bytes.length >= at + prefix.length && Arrays.equals(bytes, at, at + prefix.length, prefix, 0, prefix.length);
    }
}

package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pictures are told by their bytes, never by their names; SVG is never one. */
class ImageBytesTest {

    @Test
    void theFourRasterFormatsAreKnownByTheirSignatures() {
        assertEquals(Optional.of("image/png"), ImageBytes.rasterType(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0}));
        assertEquals(Optional.of("image/jpeg"), ImageBytes.rasterType(new byte[] {(byte) 0xff, (byte) 0xd8, (byte) 0xff, (byte) 0xe0}));
        assertEquals(Optional.of("image/gif"), ImageBytes.rasterType(ascii("GIF89a....")));
        assertEquals(Optional.of("image/gif"), ImageBytes.rasterType(ascii("GIF87a")));
        assertEquals(Optional.of("image/webp"), ImageBytes.rasterType(ascii("RIFF\0\0\0\0WEBPVP8 ")));
    }

    @Test
    void textNamedLikeAPictureSvgAndShortFilesAreNotPictures() {
        assertEquals(Optional.empty(), ImageBytes.rasterType(ascii("<script>alert(1)</script>")), "a fake.png");
        assertEquals(Optional.empty(), ImageBytes.rasterType(ascii("<svg xmlns=\"http://www.w3.org/2000/svg\"><script/></svg>")));
        assertEquals(Optional.empty(), ImageBytes.rasterType(ascii("RIFF\0\0\0\0WAVEfmt ")), "a RIFF that is not WebP");
        assertEquals(Optional.empty(), ImageBytes.rasterType(new byte[] {(byte) 0x89, 'P', 'N'}));
        assertEquals(Optional.empty(), ImageBytes.rasterType(new byte[0]));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}

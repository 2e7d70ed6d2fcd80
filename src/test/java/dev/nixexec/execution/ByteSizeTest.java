package dev.nixexec.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The size grammar of {@code limits}: whole numbers, binary and decimal units, nothing else. */
class ByteSizeTest {

    @Test
    void unitsAreBinaryWithAnIAndDecimalWithout() {
        assertEquals(Optional.of(67_108_864L), ByteSize.parse("64MiB"));
        assertEquals(Optional.of(1L << 30), ByteSize.parse("1GiB"));
        assertEquals(Optional.of(500_000L), ByteSize.parse("500KB"));
        assertEquals(Optional.of(2_000_000L), ByteSize.parse("2mb"));
        assertEquals(Optional.of(3L << 40), ByteSize.parse("3tib"));
        assertEquals(Optional.of(4096L), ByteSize.parse("4096"));
        assertEquals(Optional.of(10L), ByteSize.parse(" 10 B "));
        assertEquals(Optional.of(65_536L), ByteSize.parse("64 KiB"));
    }

    @Test
    void anythingElseIsNoSize() {
        for (String bad : new String[] {"", "MiB", "1.5GiB", "-1", "+1", "1e6", "64M", "64 megs", "0x40", "1GiBs",
                "99999999999TiB", "99999999999999999999"}) {
            assertEquals(Optional.empty(), ByteSize.parse(bad), bad);
        }
    }

    @Test
    void messagesShowBytesAndTheBinaryUnit() {
        assertEquals("536870912 bytes (512MiB)", ByteSize.describe(512L << 20));
        assertEquals("1000 bytes", ByteSize.describe(1000));
        assertEquals("1073741824 bytes (1GiB)", ByteSize.describe(1L << 30));
    }
}

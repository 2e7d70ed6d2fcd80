package dev.nixexec.execution;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as requests write them: a whole number of bytes, optionally followed by a unit, any case:
 * {@code B}; {@code KB}, {@code MB}, {@code GB}, {@code TB} (powers of 1000); {@code KiB},
 * {@code MiB}, {@code GiB}, {@code TiB} (powers of 1024). {@code "64MiB"} is 67108864 bytes,
 * {@code "500KB"} 500000. No fractions, no sign.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})\\s*([kmgt]i?b|b)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {
    }

    /** The bytes {@code text} stands for, if it is a size in the grammar above and fits a long. */
    public static Optional<Long> parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
        long multiplier = switch (unit) {
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            case "tib" -> 1L << 40;
            default -> 1L;
        };
        try {
            return Optional.of(Math.multiplyExact(Long.parseLong(m.group(1)), multiplier));
        } catch (ArithmeticException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** {@code bytes} for a message: the exact count, and in binary units when it is a whole number of them. */
    public static String describe(long bytes) {
        for (String unit : new String[] {"TiB", "GiB", "MiB", "KiB"}) {
            long size = switch (unit) {
                case "TiB" -> 1L << 40;
                case "GiB" -> 1L << 30;
                case "MiB" -> 1L << 20;
                default -> 1L << 10;
            };
            if (bytes >= size && bytes % size == 0) {
                return bytes + " bytes (" + bytes / size + unit + ")";
            }
        }
        return bytes + " bytes";
    }
}

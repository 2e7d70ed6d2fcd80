package dev.nixexec.cli;

/**
 * Text from a server as the terminal gets it: every control character (C0 with ESC, DEL, C1) as a
 * visible escape ({@code \x1b}, {@code \n}), so that a label or message cannot move the cursor,
 * clear the screen, set the title, write the clipboard (OSC 52) or print lines that look like the
 * command's own. Only a program's own output in {@code run}, {@code exec} and {@code enter} reaches
 * the terminal as its bytes.
 */
final class Printable {

    private Printable() {
    }

    /** One line: surrounding white space stripped, every control character escaped. */
    static String line(String text) {
        return text == null ? "" : escaped(text.strip(), false);
    }

    /** A program's output replayed ({@code logs}): its line breaks and tabs kept, every other control character escaped. */
    static String output(String text) {
        return escaped(text, true);
    }

    /**
     * JSON as printed: Jackson escapes C0 itself; DEL and C1, which it leaves as they are, become
     * {@code \}{@code u} escapes too (they can only stand inside strings, so the JSON means the same).
     */
    static String json(String text) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (isControl(c)) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    private static String escaped(String text, boolean keepLines) {
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (!isControl(c) || keepLines && (c == '\n' || c == '\t')) {
                b.appendCodePoint(c);
            } else {
                b.append(switch (c) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> String.format("\\x%02x", c);
                });
            }
        });
        return b.toString();
    }

    private static boolean isControl(int c) {
        return c < 0x20 || c >= 0x7f && c <= 0x9f;
    }
}

package dev.nixexec.attach;

import dev.nixexec.sandbox.TerminalSize;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The one text frame a client sends: {@code {"resize":[columns,rows]}}. */
final class ResizeFrame {

    private static final Pattern RESIZE = Pattern.compile("\\s*\\{\\s*\"resize\"\\s*:\\s*\\[\\s*(\\d{1,5})\\s*,\\s*(\\d{1,5})\\s*]\\s*}\\s*");

    private ResizeFrame() {
    }

    static Optional<TerminalSize> parse(String text) {
        Matcher m = RESIZE.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new TerminalSize(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}

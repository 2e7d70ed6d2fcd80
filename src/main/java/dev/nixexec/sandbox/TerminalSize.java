package dev.nixexec.sandbox;

/** A terminal window in character cells; what {@code TIOCSWINSZ} sets (unsigned 16-bit fields). */
public record TerminalSize(int columns, int rows) {

    public static final TerminalSize DEFAULT = new TerminalSize(80, 24);
    /** Larger than any screen; a bound only so that a bogus size is refused rather than set. */
    public static final int MAX = 10_000;

    public TerminalSize {
        if (columns < 1 || rows < 1 || columns > MAX || rows > MAX) {
            throw new IllegalArgumentException("a terminal size is 1 to " + MAX + " columns and rows, not "
                    + columns + "x" + rows);
        }
    }
}

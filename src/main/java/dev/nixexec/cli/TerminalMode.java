package dev.nixexec.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * This process's terminal in raw mode for {@code enter}, restored on close (and on exit), with its
 * window size and size changes (SIGWINCH). When standard input is not a terminal nothing changes.
 * The terminal is driven with {@code stty} on the inherited standard input: the JDK has no
 * termios of its own, and no value from the user reaches the command line.
 */
final class TerminalMode implements AutoCloseable {

    record Size(int columns, int rows) {
    }

    private final Optional<String> saved;
    private final Thread restore;

    private TerminalMode(Optional<String> saved) {
        this.saved = saved;
        this.restore = new Thread(this::restore);
        saved.ifPresent(s -> Runtime.getRuntime().addShutdownHook(restore));
    }

    static TerminalMode raw() {
        Optional<String> saved = stty("-g").map(String::strip);
        saved.ifPresent(s -> stty("raw", "-echo"));
        return new TerminalMode(saved);
    }

    /** The terminal left as it is (enter --json: its output is for a program, not a screen). */
    static TerminalMode unchanged() {
        return new TerminalMode(Optional.empty());
    }

    boolean interactive() {
        return saved.isPresent();
    }

    Size size() {
        // "rows columns"; a terminal that does not know (0 0) gets the shell's own 80x24
        return stty("size").map(String::strip).map(s -> s.split("\\s+")).filter(p -> p.length == 2)
                .map(p -> new Size(Integer.parseInt(p[1]), Integer.parseInt(p[0])))
                .filter(s -> s.columns() > 0 && s.rows() > 0).orElse(new Size(80, 24));
    }

    void onResize(Consumer<Size> listener) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), signal -> listener.accept(size()));
        } catch (IllegalArgumentException e) {
            // no SIGWINCH here: the size stays as it was at the start
        }
    }

    @Override
    public void close() {
        restore();
        if (saved.isPresent()) {
            try {
                Runtime.getRuntime().removeShutdownHook(restore);
            } catch (IllegalStateException e) {
                // already exiting: the hook restores
            }
        }
    }

    private void restore() {
        saved.ifPresent(s -> stty(s));
    }

    /** stty with standard input inherited (the terminal, if it is one); its output, if it succeeded. */
    private static Optional<String> stty(String... arguments) {
        List<String> command = new java.util.ArrayList<>(List.of("stty"));
        command.addAll(List.of(arguments));
        try {
            Process stty = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(stty.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return stty.waitFor() == 0 ? Optional.of(out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}

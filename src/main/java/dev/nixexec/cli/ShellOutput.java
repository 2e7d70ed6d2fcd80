package dev.nixexec.cli;

import java.io.PrintStream;
import java.nio.ByteBuffer;

/** Where {@code enter} writes the shell: its screen's bytes as they are, or NDJSON with {@code --json}. */
sealed interface ShellOutput {

    /** The shell is attached: the connection is open. */
    void attached();

    /** Bytes of the shell's screen, in order. */
    void screen(ByteBuffer bytes);

    /** The shell's end, after its last screen bytes. */
    void ended(ShellClosed end);

    static ShellOutput of(boolean json, PrintStream out) {
        return json ? new Events(out) : new Bytes(out);
    }

    /**
     * The screen as it is, for a terminal: the end is told on stderr by the command, on a line of
     * its own (after a newline when the screen stopped mid-line, e.g. at the shell's prompt).
     */
    final class Bytes implements ShellOutput {

        private final PrintStream out;
        private volatile boolean midLine;

        Bytes(PrintStream out) {
            this.out = out;
        }

        @Override
        public void attached() {
        }

        @Override
        public void screen(ByteBuffer bytes) {
            byte[] screen = new byte[bytes.remaining()];
            bytes.get(screen);
            out.write(screen, 0, screen.length);
            out.flush();
            if (screen.length > 0) {
                midLine = screen[screen.length - 1] != '\n';
            }
        }

        @Override
        public void ended(ShellClosed end) {
            if (midLine && end.exitCode().isEmpty()) {
                out.print('\n');
                out.flush();
            }
        }
    }

    /** One {@link ShellEventLine} a line, numbered from 1, the screen decoded across frames. */
    final class Events implements ShellOutput {

        private final PrintStream out;
        private final Utf8Stream text = new Utf8Stream();
        private int sequence;

        Events(PrintStream out) {
            this.out = out;
        }

        @Override
        public synchronized void attached() {
            print(ShellEventLine.attached(++sequence));
        }

        @Override
        public synchronized void screen(ByteBuffer bytes) {
            stdout(text.decode(bytes));
        }

        @Override
        public synchronized void ended(ShellClosed end) {
            stdout(text.end());
            print(ShellEventLine.result(++sequence, end));
        }

        private void stdout(String decoded) {
            if (!decoded.isEmpty()) {
                print(ShellEventLine.stdout(++sequence, decoded));
            }
        }

        private void print(ShellEventLine line) {
            ClientOptions.printJson(out, line.json());
        }
    }
}

package dev.nixexec.cli;

/** Why a command stops: one line for stderr and the exit code that goes with it. */
final class CommandFailure extends RuntimeException {

    final Exit exit;

    CommandFailure(Exit exit, String message) {
        super(oneLine(message), null, false, false);
        this.exit = exit;
    }

    static String oneLine(String text) {
        return text == null ? "" : text.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}

package dev.nixexec.cli;

/** Why a command stops: one line for stderr and the exit code that goes with it. */
final class CommandFailure extends RuntimeException {

    final Exit exit;

    CommandFailure(Exit exit, String message) {
        super(Printable.line(message), null, false, false);
        this.exit = exit;
    }
}

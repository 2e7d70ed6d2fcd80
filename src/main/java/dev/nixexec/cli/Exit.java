package dev.nixexec.cli;

/**
 * The exit codes of the nix-exec command besides a program's own (docs/cli.md, "Exit codes"):
 * {@code run} and {@code exec} exit with the program's exit code, so these name the other ends.
 */
enum Exit {
    OK(0, "done"),
    USAGE(64, "the command line is wrong: an unknown command or option, a missing or bad value"),
    REFUSED(65, "the server refused the request: invalid input (400), a conflict (409), too large (413)"),
    NOT_FOUND(66, "no such job, session or environment for this key (404)"),
    UNREACHABLE(69, "the server cannot be reached, or the connection broke and could not be resumed"),
    SERVER_ERROR(70, "the server failed (5xx other than 503) or answered something that is not its API"),
    SHELL_LOST(74, "enter: the shell's connection ended without the shell's exit status"),
    BUSY(75, "try again later: a cap or the key's request rate was reached (429), the service is unavailable (503)"),
    DENIED(77, "the key is missing or unknown (401), or its role may not do this (403)"),
    // the java check is the launcher script's (src/main/launcher/nix-exec), before any Java runs
    CONFIG(78, "the configuration cannot be used: the nix-exec YAML file (the line names it, the key and why), or a java (JAVA_HOME, else PATH) older than 21"),
    TIMED_OUT(124, "the job ran out of time (status timed_out)"),
    COULD_NOT_RUN(125, "the platform could not run the code (status error, e.g. unknown_package), or a session or environment build failed"),
    CANCELLED(130, "the job was cancelled, or the command was interrupted (Ctrl-C cancels the job it started)");

    final int code;
    final String meaning;

    Exit(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /** The exit for an HTTP error status. */
    static Exit ofStatus(int status) {
        return switch (status) {
            case 400, 409, 413, 415, 422 -> REFUSED;
            case 404, 410 -> NOT_FOUND;
            case 401, 403 -> DENIED;
            case 429, 503 -> BUSY;
            default -> SERVER_ERROR;
        };
    }
}

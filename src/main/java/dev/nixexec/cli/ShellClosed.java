package dev.nixexec.cli;

import java.net.http.WebSocket;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** How an {@code enter} connection ended (docs/api.md's close codes). */
record ShellClosed(int code, String reason) {

    private static final Pattern EXIT = Pattern.compile("exit (\\d{1,9})");

    /** The shell's exit code, when it exited: a normal close saying {@code exit N}. */
    OptionalInt exitCode() {
        Matcher exit = EXIT.matcher(reason);
        return code == WebSocket.NORMAL_CLOSURE && exit.matches() ? OptionalInt.of(Integer.parseInt(exit.group(1)))
                : OptionalInt.empty();
    }
}

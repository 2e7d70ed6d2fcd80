package dev.nixexec.worker;

/** A failure's deepest cause in one line: a log line per beat while the database is away, not a stack trace. */
final class RootMessage {

    private RootMessage() {
    }

    static String of(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getClass().getSimpleName() + ": " + root.getMessage();
    }
}

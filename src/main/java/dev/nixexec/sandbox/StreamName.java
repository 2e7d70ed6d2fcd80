package dev.nixexec.sandbox;

/** Which of the two output streams a chunk came from. */
public enum StreamName {
    STDOUT, STDERR;

    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

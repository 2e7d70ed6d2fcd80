package dev.nixexec.nix;

import java.io.IOException;
import java.nio.file.FileSystemException;

/** The platform could not provide the environment; {@code code} is the machine-readable error code. */
public class EnvironmentException extends Exception {

    private final String code;

    public EnvironmentException(String code, String message) {
        super(message);
        this.code = code;
    }

    public EnvironmentException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /**
     * The node's own files could not be written (its cache directory full, say): a build failure
     * whose message gives the cause without the host path, which is no business of the tenant's.
     */
    static EnvironmentException hostStorage(String doing, IOException e) {
        String reason = e instanceof FileSystemException fs ? fs.getReason() : e.getMessage();
        return new EnvironmentException("build_failed", doing + ": " + (reason == null ? "I/O error" : reason), e);
    }

    /** One of {@code unknown_package}, {@code build_failed}, {@code build_timeout}, {@code nix_unavailable}. */
    public String code() {
        return code;
    }
}

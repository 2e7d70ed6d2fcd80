package dev.nixexec.nix;

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

    /** One of {@code unknown_package}, {@code build_failed}, {@code build_timeout}, {@code nix_unavailable}. */
    public String code() {
        return code;
    }
}

package dev.nixexec.sandbox;

/** The sandbox could not be started; the code did not run. */
public class SandboxException extends RuntimeException {

    public SandboxException(String message) {
        super(message);
    }
}

package dev.nixexec.sandbox;

/** The run's {@link RunGate} said no: the sandbox was taken down before any user code started. */
public final class RunCalledOff extends SandboxException {

    public RunCalledOff() {
        super("the run was called off before its code started");
    }
}

package dev.nixexec.sandbox;

/**
 * Asked once a sandbox is set up and waiting, before any user code starts: false calls the run
 * off, and nothing of the code runs. The job queue records "started" here, while bubblewrap
 * prepares the namespaces and mounts.
 */
@FunctionalInterface
public interface RunGate {

    RunGate OPEN = () -> true;

    boolean open();
}

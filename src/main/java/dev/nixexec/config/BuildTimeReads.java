package dev.nixexec.config;

/** Tells configuration sources whether the Quarkus build, not the running service, is reading them. */
public final class BuildTimeReads {

    private BuildTimeReads() {
    }

    /** Whether the Quarkus build is reading, which records what it reads as the application's runtime defaults. */
    public static boolean now() {
        return StackWalker.getInstance().walk(frames ->
                frames.anyMatch(f -> f.getClassName().startsWith("io.quarkus.deployment.configuration.")));
    }
}

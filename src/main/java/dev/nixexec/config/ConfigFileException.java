package dev.nixexec.config;

import java.nio.file.Path;

/** A nix-exec YAML file that cannot be used; the message names the file and the key. */
public class ConfigFileException extends IllegalArgumentException {

    private final String key;
    private final String problem;

    public ConfigFileException(Path file, String key, String problem) {
        super("nix-exec config " + file + ": " + key + ": " + problem);
        this.key = key;
        this.problem = problem;
    }

    /** The YAML key at fault, e.g. {@code sandbox.timeout}. */
    public String key() {
        return key;
    }

    /** What is wrong with it, without the file and key. */
    public String problem() {
        return problem;
    }
}

package dev.nixexec.config;

import java.nio.file.Path;

/** A nix-exec YAML file that cannot be used; the message names the file and the key. */
public class ConfigFileException extends IllegalArgumentException {

    public ConfigFileException(Path file, String key, String problem) {
        super("nix-exec config " + file + ": " + key + ": " + problem);
    }
}

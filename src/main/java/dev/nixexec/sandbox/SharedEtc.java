package dev.nixexec.sandbox;

import dev.nixexec.config.StatePaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.UUID;

/**
 * The runs' /etc files, the same for every run of one launcher pool: written once in the jobs
 * directory on first use, readable by every run's uid and writable by none, rather than written
 * and given away for each run.
 */
final class SharedEtc {

    private final StatePaths paths;
    private final Map<String, String> files;
    private Path dir;

    SharedEtc(StatePaths paths, Map<String, String> files) {
        this.paths = paths;
        this.files = files;
    }

    synchronized Path dir() throws IOException {
        if (dir == null) {
            Path made = paths.jobsDir().resolve("etc-" + UUID.randomUUID());
            Files.createDirectory(made, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            for (Map.Entry<String, String> file : files.entrySet()) {
                Files.writeString(made.resolve(file.getKey()), file.getValue());
                Files.setPosixFilePermissions(made.resolve(file.getKey()), PosixFilePermissions.fromString("r--r--r--"));
            }
            dir = made;
        }
        return dir;
    }

    synchronized void remove() {
        if (dir != null) {
            ChildStreams.deleteTree(dir);
            dir = null;
        }
    }
}

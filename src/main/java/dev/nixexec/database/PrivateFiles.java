package dev.nixexec.database;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Files and directories of the embedded database that only the service's user may read or enter. */
final class PrivateFiles {

    static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {
    }

    /** Creates the directory 0700 or makes an existing one (a real directory of this service) so. */
    static void directory(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            } catch (FileAlreadyExistsException raced) {
                // checked below
            }
        }
        PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory() || !attributes.owner().getName().equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " must be a directory of " + System.getProperty("user.name"));
        }
        if (!attributes.permissions().equals(PRIVATE_DIR)) {
            Files.setPosixFilePermissions(dir, PRIVATE_DIR);
        }
    }

    /** Creates the file 0600 with this content. */
    static Path newFile(Path file, CharSequence content) throws IOException {
        return Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(PRIVATE_FILE)), content);
    }
}

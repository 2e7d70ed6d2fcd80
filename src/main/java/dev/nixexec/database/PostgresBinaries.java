package dev.nixexec.database;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jboss.logging.Logger;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL binaries the zonky library ships for this machine, unpacked once per archive into
 * {@code postgres-binaries/<sha-256>} next to the data directory. A directory others could write
 * to (the library made it 0777) may hold anything: it is emptied, not reused.
 */
final class PostgresBinaries {

    private static final Logger LOG = Logger.getLogger(PostgresBinaries.class);

    private PostgresBinaries() {
    }

    /** The binaries' home directory (with {@code bin/}), unpacked now unless they already were. */
    static Path unpacked(Path binariesDir) throws IOException {
        if (Files.isDirectory(binariesDir, LinkOption.NOFOLLOW_LINKS)) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(binariesDir, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                LOG.warnf("%s was writable by others; unpacking the PostgreSQL binaries again", binariesDir);
                Path aside = binariesDir.resolveSibling(".postgres-binaries-untrusted-" + UUID.randomUUID());
                Files.move(binariesDir, aside, StandardCopyOption.ATOMIC_MOVE);
                deleteTree(aside);
            }
        }
        PrivateFiles.directory(binariesDir);
        byte[] archive;
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(os(), architecture())) {
            archive = in.readAllBytes();
        }
        Path home = binariesDir.resolve(HexFormat.of().formatHex(sha256(archive), 0, 16));
        if (!Files.exists(home.resolve(".complete"))) {
            Path unpacking = Files.createTempDirectory(binariesDir, ".unpacking-");
            try {
                unpack(archive, unpacking);
                Files.createFile(unpacking.resolve(".complete"));
                deleteTree(home);
                Files.move(unpacking, home, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                deleteTree(unpacking);
            }
        }
        try (Stream<Path> others = Files.list(binariesDir)) {
            for (Path other : others.filter(p -> !p.equals(home)).toList()) {
                deleteTree(other);
            }
        }
        return home;
    }

    private static void unpack(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("archive entry outside its directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink() || entry.isLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                    continue;
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path);
                }
                // never writable by group or others, whatever the archive says
                Files.setPosixFilePermissions(path, modeOf(entry.getMode() & 0755 | 0600));
            }
        }
    }

    /** Deletes a tree without following links (a walk does not follow them). */
    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static Set<PosixFilePermission> modeOf(int mode) {
        String bits = "rwxrwxrwx";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            s.append((mode & (1 << (8 - i))) != 0 ? bits.charAt(i) : '-');
        }
        return PosixFilePermissions.fromString(s.toString());
    }

    private static String os() {
        String name = System.getProperty("os.name");
        return name.startsWith("Mac") ? "Darwin" : name.startsWith("Windows") ? "Windows" : "Linux";
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch");
        return "amd64".equals(arch) ? "x86_64" : arch;
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.nixexec.workspace;

import dev.nixexec.config.ExecutableLookup;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * A run's materialised directory on this node: measured against its quota while the run lasts,
 * read back (scanned and hashed) once it has ended, and deleted, never following a link.
 */
final class RunDirectory {

    private static final Logger LOG = Logger.getLogger(RunDirectory.class);

    private static final WorkspaceProblem UNREADABLE = new WorkspaceProblem(WorkspaceProblem.UNSTORABLE,
            "the job made part of its workspace unreadable to the service, so it cannot be measured or stored");

    /** A regular file found after the run: its path, size, hash and executable bit. */
    record Found(WorkspacePath path, Path file, long size, String sha256, boolean executable) {

        FileEntry entry() {
            return new FileEntry(sha256, size, executable);
        }
    }

    /**
     * What the run left: its regular files by path, the entries that are not regular files
     * (links, FIFOs, sockets: not stored), or why the tree cannot be stored at all.
     */
    record Scan(SortedMap<String, Found> files, List<String> skipped, Optional<WorkspaceProblem> unstorable) {
    }

    private final Path dir;
    private final long maxBytes;
    private final int maxFiles;

    RunDirectory(Path dir, long maxBytes, int maxFiles) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.maxFiles = maxFiles;
    }

    Path path() {
        return dir;
    }

    /**
     * Why the directory cannot be kept, if so: past the quota, or deeper than any workspace path
     * (nothing below could be stored, and the walk stops there rather than fail at PATH_MAX), or
     * unreadable (what cannot be measured could hold anything: fail closed).
     */
    Optional<WorkspaceProblem> measure() {
        long[] totals = new long[2];
        WorkspaceProblem[] problem = new WorkspaceProblem[1];
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    problem[0] = tooDeep(d).orElse(null);
                    return problem[0] == null ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    totals[0] += attrs.size();
                    totals[1]++;
                    return totals[0] > maxBytes || totals[1] > maxFiles ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    problem[0] = UNREADABLE;
                    return FileVisitResult.TERMINATE;
                }
            });
        } catch (IOException e) {
            problem[0] = UNREADABLE;
        }
        if (problem[0] != null) {
            return Optional.of(problem[0]);
        }
        return totals[0] > maxBytes || totals[1] > maxFiles
                ? Optional.of(new WorkspaceProblem(WorkspaceProblem.QUOTA, "the job wrote past the workspace quota of " + maxBytes
                        + " bytes and " + maxFiles + " files"))
                : Optional.empty();
    }

    /**
     * Every regular file, by path, hashed; anything else (links, fifos, sockets) is skipped. A
     * regular file that no workspace path can name (not UTF-8, too long, a control character) is
     * never dropped or renamed: the scan stops and says why (two names differing only in invalid
     * bytes would otherwise decode to one path, and one file would be lost).
     */
    Scan scan() throws IOException {
        SortedMap<String, Found> found = new TreeMap<>();
        List<String> skipped = new ArrayList<>();
        WorkspaceProblem[] unstorable = new WorkspaceProblem[1];
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                unstorable[0] = tooDeep(d).orElse(null);
                if (unstorable[0] != null) {
                    return FileVisitResult.TERMINATE;
                }
                // code may have taken its own permissions away; the service (its owner or root) restores them
                Files.setPosixFilePermissions(d, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path relativePath = dir.relativize(file);
                String relative = relativePath.toString();
                if (!attrs.isRegularFile()) {
                    skipped.add(relative);
                    return FileVisitResult.CONTINUE;
                }
                // A name's bytes that do not decode (not UTF-8) come back as another path from its text.
                if (!relativePath.equals(relativePath.getFileSystem().getPath(relative))) {
                    unstorable[0] = new WorkspaceProblem(WorkspaceProblem.UNSTORABLE, "the job wrote a file whose name is not valid "
                            + "UTF-8 (shown with replacement characters: " + shown(relative)
                            + "); workspace paths are UTF-8 text");
                    return FileVisitResult.TERMINATE;
                }
                Optional<String> bad = WorkspacePath.problem(relative);
                if (bad.isPresent()) {
                    unstorable[0] = new WorkspaceProblem(WorkspaceProblem.UNSTORABLE, "the job wrote a file no workspace path can name ("
                            + shown(relative) + "): " + bad.get());
                    return FileVisitResult.TERMINATE;
                }
                // the run's owner bit is what a file's mode means to the next run (its uid owns the file)
                boolean executable = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
                        .contains(PosixFilePermission.OWNER_EXECUTE);
                Files.setPosixFilePermissions(file, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE));
                found.put(relative, new Found(new WorkspacePath(relative), file, attrs.size(), ContentHash.of(file),
                        executable));
                return FileVisitResult.CONTINUE;
            }
        });
        return new Scan(Collections.unmodifiableSortedMap(found), skipped, Optional.ofNullable(unstorable[0]));
    }

    /** The file's bytes, read without following a link; must still match the hash taken when scanning. */
    static byte[] readVerified(Found f) {
        try (InputStream in = Files.newInputStream(f.file(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            byte[] content = in.readAllBytes();
            if (!ContentHash.of(content).equals(f.sha256())) {
                throw new IllegalStateException(f.path() + " changed after the run ended");
            }
            return content;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A directory whose own path is already longer than a workspace path may be: nothing in it can be stored. */
    private Optional<WorkspaceProblem> tooDeep(Path d) {
        String relative = dir.relativize(d).toString();
        if (relative.getBytes(StandardCharsets.UTF_8).length <= WorkspacePath.MAX_BYTES) {
            return Optional.empty();
        }
        return Optional.of(new WorkspaceProblem(WorkspaceProblem.UNSTORABLE, "the job made a directory tree deeper than a workspace "
                + "path may be long (" + WorkspacePath.MAX_BYTES + " bytes): " + shown(relative)));
    }

    /** A path for a message: quoted, control characters escaped, at most 100 characters. */
    private static String shown(String path) {
        StringBuilder b = new StringBuilder("'");
        path.codePoints().limit(100).forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.append(path.codePointCount(0, path.length()) > 100 ? "...'" : "'").toString();
    }

    /**
     * Deletes a run's directory, whatever the run left in it. One warning at most, with the top
     * directory only: a run can leave thousands of entries, and a line per entry would flood the log.
     */
    static void delete(Path path) {
        try {
            deleteTree(path);
        } catch (IOException e) {
            // Java names every entry by its full path, which fails past PATH_MAX in a deep tree;
            // rm walks by descriptors and reaches any depth.
            try {
                removeWithRm(path);
            } catch (IOException again) {
                LOG.warnf("cannot delete %s: %s", path, again.getMessage());
            }
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            Files.setPosixFilePermissions(path, EnumSet.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
            try (var children = Files.list(path)) {
                for (Path child : children.toList()) {
                    deleteTree(child);
                }
            }
        }
        Files.deleteIfExists(path);
    }

    private static void removeWithRm(Path path) throws IOException {
        for (String tool : List.of("chmod", "rm")) {
            Path executable = ExecutableLookup.find(tool).orElseThrow(() -> new IOException(tool + " is not on the PATH"));
            // chmod first: the run may have taken the service's own permissions away (rm as non-root needs them)
            List<String> argv = tool.equals("chmod") ? List.of(executable.toString(), "-R", "u+rwx", "--", path.toString())
                    : List.of(executable.toString(), "-rf", "--", path.toString());
            Process process = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try {
                if (!process.waitFor(5, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IOException(tool + " did not finish");
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while deleting", e);
            }
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("still there after rm -rf");
        }
    }
}

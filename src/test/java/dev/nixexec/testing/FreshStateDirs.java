package dev.nixexec.testing;

import dev.nixexec.database.EmbeddedDatabases;
import dev.nixexec.database.EmbeddedPostgresForTests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;

/**
 * Fresh state directories for application starts, each with its embedded PostgreSQL already
 * initialised: a copy of a template this test JVM made once with the service's own start-up code
 * (unpacking the binaries, initdb, the owner role) and migrated from {@code migrations/}, so each
 * start skips those ~3 s of a 2-core machine. The binaries are hard links (read-only to
 * PostgreSQL); the cluster is a real copy.
 */
public final class FreshStateDirs {

    private static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    private static final Path ROOT = REPO.resolve("target").resolve("test-state");

    private FreshStateDirs() {
    }

    /**
     * Made on first use: a stopped cluster, the only safe kind to copy. Kept on disk, not in a
     * field: each application start loads this class anew (Quarkus' class loader per start), and
     * starts in one JVM come one after another. Per JVM, so surefire's and failsafe's never share.
     */
    private static Path template() throws IOException {
        Path dir = ROOT.resolve("template-" + System.getProperty("nixexec-test.tier", "default") + "-"
                + ProcessHandle.current().pid());
        Path complete = dir.resolve(".complete");
        if (!Files.exists(complete)) {
            Files.createDirectories(dir);
            EmbeddedPostgresForTests.Server server = EmbeddedPostgresForTests.start(dir.resolve("postgres"));
            try {
                // migrated as the service migrates at its start: each start then finds its schema current
                EmbeddedDatabases.Connection owner = server.connection();
                Flyway.configure().dataSource(owner.url(), owner.user(), owner.password())
                        .locations("filesystem:" + REPO.resolve("migrations")).load().migrate();
            } finally {
                server.stop().run();
            }
            Files.createFile(complete);
            // the application starts of this JVM copied it; nothing reads it after the JVM
            Runtime.getRuntime().addShutdownHook(new Thread(() -> remove(dir), "test-state-template-removal"));
        }
        return dir;
    }

    /**
     * Where database tests that start the embedded library's own PostgreSQL ({@code
     * EmbeddedPostgres.builder()}) let it unpack its binaries: one directory per test JVM, so it
     * unpacks them once (2–3 s of a 2-core machine) and not once per test. The library makes its
     * directory writable by everyone; the parent made here is private, so no other user reaches it.
     */
    public static Path libraryBinaries() {
        Path parent = ROOT.resolve("library-binaries-" + ProcessHandle.current().pid());
        try {
            Files.createDirectory(Files.createDirectories(ROOT).resolve(parent.getFileName()),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            // an earlier test class of this JVM made it: used only as that directory, never through a link
            if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
                throw new UncheckedIOException(e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parent.resolve("binaries");
    }

    public static Path create() {
        try {
            Path state = Files.createTempDirectory(Files.createDirectories(ROOT), "run-");
            copy(template(), state);
            return state;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes a state directory once its PostgreSQL stopped: each is a copy of a cluster, and a
     * test run starts dozens. Best effort: what cannot be deleted stays under target/.
     */
    public static void remove(Path state) {
        try (Stream<Path> walk = Files.walk(state)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // left under target/, which a clean removes
        }
    }

    /** {@link #remove} now if no PostgreSQL runs on the directory, else at this JVM's exit. */
    public static void removeOnceStopped(Path state) {
        boolean running;
        try (Stream<Path> walk = Files.walk(state, 3)) {
            running = walk.anyMatch(p -> p.getFileName().toString().equals("postmaster.pid"));
        } catch (IOException | UncheckedIOException e) {
            running = true;
        }
        if (running) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> remove(state), "test-state-removal"));
        } else {
            remove(state);
        }
    }

    private static void copy(Path template, Path state) throws IOException {
        Path binaries = template.resolve("postgres-binaries");
        List<Path> entries;
        try (Stream<Path> walk = Files.walk(template)) {
            entries = walk.filter(p -> !p.equals(template)).toList();
        }
        for (Path source : entries) {
            Path target = state.resolve(template.relativize(source).toString());
            if (Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(target);
                Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(source));
            } else if (Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS) && source.startsWith(binaries)) {
                Files.createLink(target, source);
            } else if (Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)
                    && !List.of("postgres.lock", ".complete").contains(source.getFileName().toString())) {
                Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
            } else if (Files.isSymbolicLink(source)) {
                Files.createSymbolicLink(target, Files.readSymbolicLink(source));
            }
        }
    }
}

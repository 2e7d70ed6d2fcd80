package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading a run's directory back, on a real file system without an application: only regular
 * files count (links are not followed), with their hash and executable bit; a name no workspace
 * path can spell refuses the run; the quota is measured; a file changed after its scan is not
 * stored.
 */
class RunDirectoryTest {

    @TempDir
    Path dir;

    @Test
    void regularFilesAreFoundWithHashAndExecutableBitAndLinksAreSkipped() throws Exception {
        Files.createDirectories(dir.resolve("out"));
        Files.writeString(dir.resolve("out/plot.txt"), "plot");
        Path tool = Files.writeString(dir.resolve("tool.sh"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(dir.resolve("passwd"), Path.of("/etc/passwd"));
        Files.createSymbolicLink(dir.resolve("root"), Path.of("/proc/self/root"));

        RunDirectory.Scan scan = new RunDirectory(dir, 1 << 20, 100).scan();

        assertTrue(scan.unstorable().isEmpty(), scan.toString());
        assertEquals(List.of("out/plot.txt", "tool.sh"), List.copyOf(scan.files().keySet()));
        assertEquals(new FileEntry(ContentHash.of("plot".getBytes(StandardCharsets.UTF_8)), 4, false),
                scan.files().get("out/plot.txt").entry());
        assertTrue(scan.files().get("tool.sh").executable());
        assertEquals(List.of("passwd", "root"), scan.skipped().stream().sorted().toList());
        assertEquals("plot", new String(RunDirectory.readVerified(scan.files().get("out/plot.txt")),
                StandardCharsets.UTF_8));
    }

    @Test
    void aFileChangedAfterItsScanIsNotRead() throws Exception {
        Path file = Files.writeString(dir.resolve("data.txt"), "before");
        RunDirectory.Found found = new RunDirectory(dir, 1 << 20, 100).scan().files().get("data.txt");
        Files.writeString(file, "after!");
        assertThrows(IllegalStateException.class, () -> RunDirectory.readVerified(found));
    }

    @Test
    void aNameThatIsNotUtf8RefusesTheRun() throws Exception {
        // Java cannot name such a file; python writes the bytes as they are
        Process p = new ProcessBuilder("python3", "-c", "open(b'" + dir + "/name-\\xff', 'w').write('x')")
                .inheritIO().start();
        assertEquals(0, p.waitFor());
        RunDirectory.Scan scan = new RunDirectory(dir, 1 << 20, 100).scan();
        assertEquals(WorkspaceProblem.UNSTORABLE, scan.unstorable().orElseThrow().code());
        assertTrue(scan.unstorable().get().message().contains("not valid UTF-8"), scan.unstorable().get().message());
    }

    @Test
    void theQuotaIsMeasuredInBytesAndFiles() throws Exception {
        Files.write(dir.resolve("a.bin"), new byte[600]);
        assertTrue(new RunDirectory(dir, 1000, 2).measure().isEmpty());
        Files.write(dir.resolve("b.bin"), new byte[600]);
        WorkspaceProblem bytes = new RunDirectory(dir, 1000, 10).measure().orElseThrow();
        assertTrue(bytes.quota(), bytes.toString());
        Files.write(dir.resolve("c.bin"), new byte[1]);
        WorkspaceProblem files = new RunDirectory(dir, 1 << 20, 2).measure().orElseThrow();
        assertTrue(files.quota(), files.toString());
        assertFalse(new RunDirectory(dir, 1 << 20, 3).measure().isPresent());
    }
}

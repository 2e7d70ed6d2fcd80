package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's directory goes whatever the run left in it, without a log line per entry: a tree far
 * deeper than PATH_MAX (which Java's path-based calls cannot reach) once made thousands of
 * warnings of thousands of characters each, and stayed on disk.
 */
class WorkspaceRunDeleteTest {

    @Test
    void aTreeDeeperThanPathMaxIsDeletedWithoutAFloodOfWarnings(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("ws-deep"));
        // Java cannot make it either (it names every directory by its full path); python walks down by chdir
        Process p = new ProcessBuilder("python3", "-c", String.join("\n",
                "import os, sys",
                "os.chdir(sys.argv[1])",
                "for i in range(3000):",
                "    os.mkdir('d')",
                "    os.chdir('d')",
                "open('bottom', 'w').write('x')",
                "os.chmod('..', 0)",
                "print('made')"), dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), out);
        assertEquals("made", out);
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(handler);
        try {
            RunDirectory.delete(dir);
        } finally {
            root.removeHandler(handler);
        }
        assertFalse(Files.exists(dir, LinkOption.NOFOLLOW_LINKS), "the deep tree is still there");
        assertTrue(warnings.isEmpty(), warnings.size() + " warnings");
    }
}

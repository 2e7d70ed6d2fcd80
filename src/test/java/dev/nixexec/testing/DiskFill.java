package dev.nixexec.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fills a (small, test-mounted) filesystem to ENOSPC, the way a disk fills up under a service. */
public final class DiskFill {

    private DiskFill() {
    }

    /** Writes {@code file} until the filesystem has no block left. */
    public static void bytes(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            byte[] block = new byte[4096];
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            requireFull(full);
        }
    }

    /** Makes empty files in {@code dir} until the filesystem has no inode left. */
    public static void inodes(Path dir) throws IOException {
        try {
            for (int i = 0; ; i++) {
                Files.createFile(dir.resolve("inode-" + System.nanoTime() + "-" + i));
            }
        } catch (IOException full) {
            requireFull(full);
        }
    }

    private static void requireFull(IOException e) throws IOException {
        if (!String.valueOf(e.getMessage()).contains("No space left")) {
            throw e;
        }
    }
}

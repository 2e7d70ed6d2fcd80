package dev.nixexec.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading and writing cgroup control files. */
final class CgroupFiles {

    private CgroupFiles() {
    }

    /** The number after {@code key} in a flat-keyed file such as memory.events; 0 if absent. */
    static long counter(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length == 2 && parts[0].equals(key)) {
                    return Long.parseLong(parts[1]);
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // no such counter on this kernel
        }
        return 0;
    }

    static void write(Path file, String value) throws IOException {
        Files.writeString(file, value);
    }

    /** Kills listed pids until the list is empty, since a process may fork while we read. */
    static void killListed(Path procs) {
        for (int round = 0; round < 1000; round++) {
            List<String> pids;
            try {
                pids = Files.readAllLines(procs);
            } catch (IOException e) {
                return;
            }
            if (pids.isEmpty()) {
                return;
            }
            for (String pid : pids) {
                try {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
                } catch (NumberFormatException ignored) {
                    // blank line
                }
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** rmdir, retried briefly while the last processes are being reaped. */
    static void removeDir(Path dir) {
        for (int round = 0; round < 100; round++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                killListed(dir.resolve("cgroup.procs"));
                try {
                    Thread.sleep(10);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}

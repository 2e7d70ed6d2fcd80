package dev.nixexec.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

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

    /** The number {@code key} stands before in a flat-keyed file (cpu.stat), if the file has it. */
    static Optional<Long> keyed(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length == 2 && parts[0].equals(key)) {
                    return Optional.of(Long.parseLong(parts[1]));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not on this kernel: unmeasured
        }
        return Optional.empty();
    }

    /** The number a single-value file (cpuacct.usage, memory.peak) holds, if it exists and holds one. */
    static Optional<Long> value(Path file) {
        try {
            return Optional.of(Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException ignored) {
            return Optional.empty();
        }
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
            String cgroupName = procs.getParent().getFileName().toString();
            for (String pid : pids) {
                try {
                    long id = Long.parseLong(pid.trim());
                    // pids are reused quickly (pid_max can be 32768): take the handle first (it pins the
                    // start time that destroy checks), then make sure the pid is still in our cgroup
                    ProcessHandle.of(id).filter(h -> inCgroup(id, cgroupName)).ifPresent(ProcessHandle::destroyForcibly);
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

    private static boolean inCgroup(long pid, String cgroupName) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup")).stream()
                    .anyMatch(line -> line.endsWith("/" + cgroupName));
        } catch (IOException e) {
            return false;
        }
    }

    /** rmdir, retried briefly while the last processes are being reaped. */
    static boolean removeDir(Path dir) {
        for (int round = 0; round < 100; round++) {
            try {
                Files.deleteIfExists(dir);
                return true;
            } catch (IOException e) {
                killListed(dir.resolve("cgroup.procs"));
                try {
                    Thread.sleep(10);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }
}

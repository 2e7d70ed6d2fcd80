package dev.nixexec.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A run's network namespace, held open by this service from the moment it was found until its
 * network is up. The processes that set the network up are given {@link #path()}, this service's
 * own descriptor, never the sandbox's pid: should the sandbox end meanwhile, and its pid go to
 * another process, they still enter the run's namespace, never that process's (the node's, say).
 */
final class HeldNetNamespace implements AutoCloseable {

    private final FileChannel held;
    private final Path path;

    private HeldNetNamespace(FileChannel held, Path path) {
        this.held = held;
        this.path = path;
    }

    /**
     * Opens the network namespace of the process {@code pid}; {@code stillTheSandbox}, asked once it
     * is open and named, tells whether {@code pid} is still the sandbox (and so was meanwhile).
     */
    static HeldNetNamespace open(long pid, BooleanSupplier stillTheSandbox) throws IOException {
        Path link = Path.of("/proc", Long.toString(pid), "ns", "net");
        FileChannel held = FileChannel.open(link, StandardOpenOption.READ);
        try {
            // "net:[inode]": unique among the namespaces alive, and this one is, held here
            Path namespace = Files.readSymbolicLink(link);
            if (!stillTheSandbox.getAsBoolean()) {
                throw new SandboxException("the sandbox ended before its network was set up");
            }
            Path ownFds = Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd");
            try (Stream<Path> fds = Files.list(ownFds)) {
                Path fd = fds.filter(f -> namespace.equals(linkTarget(f))).findFirst()
                        .orElseThrow(() -> new SandboxException("the run's network namespace is not among this service's descriptors"));
                return new HeldNetNamespace(held, fd);
            }
        } catch (IOException | RuntimeException e) {
            held.close();
            throw e;
        }
    }

    private static Path linkTarget(Path fd) {
        try {
            return Files.readSymbolicLink(fd);
        } catch (IOException e) {
            // closed meanwhile by another thread: not the one held here
            return null;
        }
    }

    /** {@code /proc/<this service>/fd/<n>}: any root process that opens it enters the run's namespace. */
    Path path() {
        return path;
    }

    @Override
    public void close() throws IOException {
        held.close();
    }
}

package dev.nixexec.workspace;

import dev.nixexec.config.ExecutableLookup;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * A sized tmpfs on a materialised workspace's directory, so the kernel bounds what a run puts
 * there: files it deleted but keeps open count too, and no measuring of the directory sees those.
 * The tmpfs is mounted on the host (not inside the sandbox, where it would vanish with the run
 * before its files are stored back), which needs a root service on Linux; elsewhere the directory
 * stays a plain one and only the watcher bounds it.
 */
@ApplicationScoped
public class WorkspaceTmpfs {

    private static final Logger LOG = Logger.getLogger(WorkspaceTmpfs.class);
    /** tmpfs counts whole pages: a file of one byte takes one. */
    static final long PAGE = 4096;

    private final Optional<Path> mount;
    private final Optional<Path> umount;

    public WorkspaceTmpfs() {
        boolean rootOnLinux = "root".equals(System.getProperty("user.name"))
                && System.getProperty("os.name", "").toLowerCase().contains("linux");
        this.mount = rootOnLinux ? ExecutableLookup.find("mount") : Optional.empty();
        this.umount = rootOnLinux ? ExecutableLookup.find("umount") : Optional.empty();
    }

    /** True when workspaces get a tmpfs of their own. */
    public boolean available() {
        return mount.isPresent() && umount.isPresent();
    }

    /**
     * The tmpfs size for a quota: its bytes plus a page per file it allows, so every workspace
     * within its quota fits, whatever its files' sizes.
     */
    static long sizeFor(long quotaBytes, int quotaFiles) {
        return quotaBytes + quotaFiles * PAGE;
    }

    /** Mounts a tmpfs of {@code bytes} on the (empty, service-made) directory. */
    void mount(Path dir, long bytes) throws IOException {
        run(List.of(mount.orElseThrow().toString(), "-t", "tmpfs", "-o", "size=" + bytes + ",mode=0700,nosuid,nodev",
                "nix-exec-workspace", dir.toString()));
    }

    /**
     * Detaches the tmpfs; lazily, so a run still dying keeps nothing mounted on the host, and the
     * memory goes with its last open file.
     */
    void unmount(Path dir) {
        try {
            run(List.of(umount.orElseThrow().toString(), "--lazy", dir.toString()));
        } catch (IOException e) {
            LOG.warnf("cannot unmount the workspace tmpfs %s: %s", dir, e.getMessage());
        }
    }

    private static void run(List<String> argv) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        Process process = builder.start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(argv.get(0) + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IOException(argv.get(0) + " exited " + process.exitValue() + ": " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + argv.get(0), e);
        }
    }
}

package dev.nixexec.nix;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.testing.DiskFill;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The environment cache's disk full ({@code executor.cache-dir} on a tmpfs of 2 MiB and 64 inodes,
 * root only), through the REST API: out of bytes, out of inodes, and out of inodes with the GC
 * root folder gone, a job that needs a new environment ends {@code error}/{@code build_failed}
 * saying the disk is full without naming a host path, leaves nothing in the cache directory; jobs
 * whose environment is cached keep running meanwhile; once space is back the same job runs,
 * without a restart.
 */
@QuarkusIntegrationTest
@WithTestResource(NixSpy.class)
@WithTestResource(CacheDiskFullIT.CacheOnTmpfs.class)
class CacheDiskFullIT {
    private static final Path MOUNT = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target",
            "cache-disk-full").toAbsolutePath();
    private static final Path FILLER = MOUNT.resolve("filler");

    /** Mounts the tmpfs before the service starts, so the service's cache lives on it from the start. */
    public static class CacheOnTmpfs implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            try {
                Files.createDirectories(MOUNT);
                if (root()) {
                    exec("mount", "-t", "tmpfs", "-o", "size=2m,nr_inodes=64,mode=0700", "tmpfs", MOUNT.toString());
                }
                return Map.of("nixexec.executor.cache-dir", MOUNT.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void stop() {
            if (root()) {
                exec("umount", MOUNT.toString());
            }
        }
    }

    @Test
    void aFullCacheDiskFailsNewEnvironmentsCleanlyAndRecovers() throws Exception {
        // Only root can mount the tiny tmpfs this needs; .ci/run runs as root, so CI always runs it.
        assumeTrue(root(), "mounting a tmpfs needs root");
        String key = memberKey("cache-full");
        Map<String, Object> newEnvironment = Map.of("language", "python",
                "code", "import tinypkg2\nprint(tinypkg2.hello())", "packages", List.of("python3Packages.tinypkg2"));

        assertEquals("succeeded", run(key, Map.of("language", "python", "code", "print('cached')")).getString("status"),
                "a job before the disk fills");
        Files.createDirectory(FILLER);
        List<Path> before = entries();

        // no byte left: the build directory's files cannot be written
        DiskFill.bytes(FILLER.resolve("bytes"));
        String running = submit(key, Map.of("language", "python",
                "code", "import time\nprint('a', flush=True)\ntime.sleep(3)\nprint('b')"));
        refusedCleanly(key, newEnvironment, before);
        JsonPath cached = run(key, Map.of("language", "python", "code", "print('still')"));
        assertEquals("succeeded", cached.getString("status"), "a cached environment on a full disk: " + cached.prettify());
        assertEquals("still\n", cached.getString("stdout"));
        JsonPath earlier = wait(key, running);
        assertEquals("succeeded", earlier.getString("status"), earlier.prettify());
        assertEquals("a\nb\n", earlier.getString("stdout"));
        Files.delete(FILLER.resolve("bytes"));

        // no inode left: the build directory itself cannot be made
        DiskFill.inodes(FILLER);
        refusedCleanly(key, newEnvironment, before);

        // ... nor the cache's GC root folder, once it is gone
        try (Stream<Path> roots = Files.list(MOUNT.resolve("gcroots"))) {
            for (Path root : roots.toList()) {
                Files.delete(root);
            }
        }
        Files.delete(MOUNT.resolve("gcroots"));
        List<Path> withoutRoots = entries();
        DiskFill.inodes(FILLER);
        refusedCleanly(key, newEnvironment, withoutRoots);

        try (Stream<Path> fillers = Files.list(FILLER)) {
            for (Path filler : fillers.toList()) {
                Files.delete(filler);
            }
        }
        JsonPath recovered = run(key, newEnvironment);
        assertEquals("succeeded", recovered.getString("status"), "no recovery after space came back: " + recovered.prettify());
        assertEquals("tinypkg2 ok\n", recovered.getString("stdout"));
    }

    /** The job ends error/build_failed saying why, without host paths or internals, and the cache is as it was. */
    private static void refusedCleanly(String key, Map<String, Object> body, List<Path> expected) throws IOException {
        JsonPath refused = run(key, body);
        assertEquals("error", refused.getString("status"), refused.prettify());
        assertEquals("build_failed", refused.getString("error.code"), refused.prettify());
        String message = refused.getString("error.message");
        assertTrue(message.contains("No space left on device"), message);
        assertFalse(message.contains(MOUNT.getParent().toString()) || message.contains("cache-disk-full"),
                "a host path in the message: " + message);
        assertFalse(message.contains("Exception") || message.contains("java."), "Java internals in the message: " + message);
        assertEquals(expected, entries(), "the refused build left something in the cache directory");
    }

    private static String submit(String key, Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    private static JsonPath run(String key, Map<String, Object> body) {
        return wait(key, submit(key, body));
    }

    private static JsonPath wait(String key, String id) {
        for (int i = 0; i < 6; i++) {
            JsonPath job = as(key).get("/v1/jobs/" + id + "?wait=30").then().statusCode(200).extract().jsonPath();
            if (List.of("succeeded", "failed", "timed_out", "cancelled", "error").contains(job.getString("status"))) {
                return job;
            }
        }
        throw new AssertionError("job " + id + " did not end within 3 minutes");
    }

    /** Every file and directory on the tmpfs but the fillers, sorted. */
    private static List<Path> entries() throws IOException {
        try (Stream<Path> walk = Files.walk(MOUNT)) {
            return walk.filter(p -> !p.startsWith(FILLER) || p.equals(FILLER)).sorted().toList();
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void exec(String... argv) {
        try {
            Process process = new ProcessBuilder(argv).inheritIO().start();
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", argv) + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

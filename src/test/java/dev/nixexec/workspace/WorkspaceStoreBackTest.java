package dev.nixexec.workspace;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.nixexec.config.StatePaths;
import dev.nixexec.testing.NixSpy;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a job's workspace is laid out, bounded and stored back, against what can go wrong around
 * it: real PostgreSQL, nix and bubblewrap, the in-process worker.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class WorkspaceStoreBackTest {

    @Inject
    EntityManager em;

    @Inject
    WorkspaceRepository repository;

    @Inject
    StatePaths paths;

    @Inject
    WorkspaceTmpfs tmpfs;

    UUID tenant;
    String key;


    @BeforeEach
    void tenant() {
        String id = read(as(ADMIN).body(Map.of("name", "sb-" + UUID.randomUUID().toString().substring(0, 8)))
                .post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
        tenant = UUID.fromString(id);
        key = read(as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + id + "/keys")
                .then().statusCode(201).extract().asString(), "key");
    }

    String workspace(Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/workspaces").then().statusCode(201).extract().asString(), "id");
    }

    void upload(String ws, String path, String content) {
        as(key).contentType("application/octet-stream").body(content.getBytes(StandardCharsets.UTF_8))
                .put("/v1/workspaces/" + ws + "/files/" + path).then().statusCode(200);
    }

    String submit(Map<String, Object> body) {
        return read(as(key).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    JsonPath job(String id) {
        return as(key).get("/v1/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    JsonPath await(String id) {
        return as(key).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200).extract().jsonPath();
    }

    JsonPath files(String ws) {
        return as(key).get("/v1/workspaces/" + ws + "/files").then().statusCode(200).extract().jsonPath();
    }

    void awaitRunning(String id) {
        waitFor(() -> job(id).getString("status").equals("running"), "job " + id + " to run");
    }

    static void waitFor(BooleanSupplier condition, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(45)).until(condition::getAsBoolean);
    }

    /**
     * Materialised workspace directories of runs on this node (a run's goes once its changes are
     * stored), not counting fresh mounts waiting for the next runs.
     */
    Set<Path> workspaceDirs() {
        Set<Path> ahead = tmpfs.readyAhead();
        try (Stream<Path> all = Files.list(paths.jobsDir())) {
            return all.filter(p -> p.getFileName().toString().startsWith("ws-") && !ahead.contains(p))
                    .collect(Collectors.toSet());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Workspace mount points of runs, as {@link #workspaceDirs}. */
    Set<Path> workspaceMounts() throws java.io.IOException {
        Set<Path> ahead = tmpfs.readyAhead();
        String prefix = paths.jobsDir().resolve("ws-").toString();
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().map(line -> line.split(" ")[4])
                .filter(mountPoint -> mountPoint.startsWith(prefix)).map(Path::of).filter(p -> !ahead.contains(p))
                .collect(Collectors.toSet());
    }

    void sql(String statement, Object... parameters) {
        QuarkusTransaction.requiringNew().run(() -> {
            var query = em.createNativeQuery(statement);
            for (int i = 0; i < parameters.length; i++) {
                query.setParameter(i + 1, parameters[i]);
            }
            query.executeUpdate();
        });
    }

    @Test
    void aDeletedButOpenFileCannotOutgrowTheWorkspace() {
        assumeTrue("root".equals(System.getProperty("user.name")), "the workspace tmpfs needs a root service");
        long quota = 1 << 20;
        int quotaFiles = 16;
        long bound = quota + quotaFiles * 4096L; // the workspace's tmpfs: its bytes and a page per file
        String ws = workspace(Map.of("name", "hidden", "quota_bytes", quota, "quota_files", quotaFiles));
        upload(ws, "keep.txt", "keep");
        // 8 MiB into a file nobody can see any more: the 200 ms watcher measures only what it can see
        JsonPath result = await(submit(Map.of("language", "python", "workspace", ws, "code", String.join("\n",
                "import os",
                "fd = os.open('hidden.bin', os.O_CREAT | os.O_WRONLY)",
                "os.unlink('hidden.bin')",
                "written, error = 0, None",
                "try:",
                "    while written < 8 << 20:",
                "        written += os.write(fd, b'x' * 65536)",
                "except OSError as e:",
                "    error = e.errno",
                "print('written', written, 'errno', error)"))));
        assertEquals("succeeded", result.getString("status"), result.prettify());
        String[] words = result.getString("stdout").strip().split(" ");
        long written = Long.parseLong(words[1]);
        assertEquals("28", words[3], "the write past the workspace's size must fail with ENOSPC: " + result.prettify());
        assertTrue(written <= bound,
                written + " bytes written, more than the workspace's " + bound);
        assertEquals(1, files(ws).getInt("version"));
        assertEquals(List.of("keep.txt"), files(ws).getList("items.path"));
    }

    @Test
    void aJobTakenBackByTheReaperStoresNothing() {
        String ws = workspace(Map.of("name", "reaped"));
        upload(ws, "keep.txt", "keep");
        Set<Path> earlier = workspaceDirs();
        String id = submit(Map.of("language", "bash", "workspace", ws,
                "code", "sleep 3; echo new > new.txt; echo changed > keep.txt; mkdir -p out; echo a > out/a.txt"));
        awaitRunning(id);
        // what the reaper does to a started job whose lease ran out
        sql("UPDATE jobs SET status = 'error', error_code = 'worker_lost', finished_at = now(), lease_until = NULL "
                + "WHERE id = ?1", UUID.fromString(id));
        waitFor(() -> earlier.containsAll(workspaceDirs()), "the run to end and drop its workspace");
        assertEquals(1, files(ws).getInt("version"));
        assertEquals(List.of("keep.txt"), files(ws).getList("items.path"));
        assertEquals("keep", as(key).get("/v1/workspaces/" + ws + "/files/keep.txt").asString());
        JsonPath after = job(id);
        assertEquals("worker_lost", after.getString("error.code"), after.prettify());
        assertTrue(after.getList("artifacts") == null || after.getList("artifacts").isEmpty(), after.prettify());
    }

    @Test
    void aJobsFolderClashingWithAnUploadedFileIsAConflict() {
        String ws = workspace(Map.of("name", "layout"));
        upload(ws, "keep.txt", "keep");
        String id = submit(Map.of("language", "bash", "workspace", ws, "code", "sleep 3; mkdir a; echo b > a/b"));
        awaitRunning(id);
        upload(ws, "a", "a file");
        JsonPath result = await(id);
        assertEquals("error", result.getString("status"), result.prettify());
        assertEquals("workspace_conflict", result.getString("error.code"));
        assertTrue(result.getString("error.message").contains("'a'"), result.getString("error.message"));
        assertEquals(List.of("a", "keep.txt"), files(ws).getList("items.path"));
        assertEquals(2, files(ws).getInt("version"));
        // the next run can lay the workspace out
        JsonPath next = await(submit(Map.of("language", "bash", "workspace", ws, "code", "cat a")));
        assertEquals("a file", next.getString("stdout"), next.prettify());
    }

    @Test
    void contentsAreStoredBeforeTheTenantsLockIsTaken() throws Exception {
        String ws = workspace(Map.of("name", "locked"));
        byte[] big = new byte[3_000_000];
        java.util.Arrays.fill(big, (byte) 'z');
        String sha = ContentHash.of(big);
        String id = submit(Map.of("language", "bash", "workspace", ws,
                "code", "sleep 1; head -c 3000000 /dev/zero | tr '\\0' z > big.bin"));
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> QuarkusTransaction.requiringNew().run(() -> {
            repository.lockForChange(tenant, UUID.fromString(ws));
            locked.countDown();
            try {
                release.await(90, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try {
            assertTrue(locked.await(30, TimeUnit.SECONDS));
            // the run's content reaches the database while another change holds the tenant's lock
            waitFor(() -> QuarkusTransaction.requiringNew().call(() -> !em.createNativeQuery(
                    "SELECT 1 FROM workspace_blobs WHERE tenant_id = ?1 AND sha256 = ?2")
                    .setParameter(1, tenant).setParameter(2, sha).getResultList().isEmpty()), "the content to be stored");
            assertEquals(0, files(ws).getInt("version"), "the files are stored only under the lock");
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
        JsonPath result = await(id);
        assertEquals("succeeded", result.getString("status"), result.prettify());
        assertEquals(List.of("big.bin"), files(ws).getList("items.path"));
        assertEquals(sha, files(ws).getString("items[0].sha256"));
    }

    @Test
    void aDatabaseErrorWhileLayingOutLeavesNoDirectoryOrMount() throws Exception {
        String ws = workspace(Map.of("name", "broken"));
        // a file whose content is missing: reading it fails in the database layer, not in I/O
        sql("INSERT INTO workspace_files (workspace_id, path, tenant_id, sha256, size) VALUES (?1, 'ghost.txt', ?2, ?3, 5)",
                UUID.fromString(ws), tenant, "0".repeat(64));
        Set<Path> earlier = workspaceDirs();
        Set<Path> mounts = workspaceMounts();
        JsonPath result = await(submit(Map.of("language", "bash", "workspace", ws, "code", "ls")));
        assertEquals("error", result.getString("status"), result.prettify());
        assertTrue(result.getString("error.message").contains("missing blob"), result.prettify());
        // a used mount is detached in the background
        waitFor(() -> earlier.containsAll(workspaceDirs()), "the run to drop its directory");
        waitFor(() -> {
            try {
                return mounts.containsAll(workspaceMounts());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, "the run's mount to be detached");
    }

    @Test
    void aWorkspaceIsFoundByIdBeforeANameThatSpellsAnId() {
        String first = workspace(Map.of("name", "first"));
        String impostor = workspace(Map.of("name", first));
        upload(first, "which.txt", "first");
        upload(impostor, "which.txt", "impostor");
        assertEquals("first", await(submit(Map.of("language", "bash", "workspace", first, "code", "cat which.txt")))
                .getString("stdout"));
        assertEquals("impostor", await(submit(Map.of("language", "bash", "workspace", impostor,
                "code", "cat which.txt"))).getString("stdout"));
        assertEquals("first", await(submit(Map.of("language", "bash", "workspace", "first", "code", "cat which.txt")))
                .getString("stdout"));
        assertFalse(files(first).getList("items.path").isEmpty());
    }

    @Test
    void theExecutableBitIsKeptAcrossRuns() {
        String ws = workspace(Map.of("name", "modes"));
        JsonPath wrote = await(submit(Map.of("language", "bash", "workspace", ws,
                "code", "printf '#!/bin/sh\necho tool ran\n' > tool.sh; chmod +x tool.sh; echo data > data.txt")));
        assertEquals("succeeded", wrote.getString("status"), wrote.prettify());
        JsonPath ran = await(submit(Map.of("language", "bash", "workspace", ws,
                "code", "./tool.sh; test -x data.txt && echo data executable; true")));
        assertEquals("tool ran\n", ran.getString("stdout"), ran.prettify());
        assertEquals(1, files(ws).getInt("version"), "running the tool changed nothing");
        // taking the bit away is a change of its own
        await(submit(Map.of("language", "bash", "workspace", ws, "code", "chmod -x tool.sh")));
        assertEquals(2, files(ws).getInt("version"));
        JsonPath after = await(submit(Map.of("language", "bash", "workspace", ws,
                "code", "test -x tool.sh && echo still executable || echo plain")));
        assertEquals("plain\n", after.getString("stdout"), after.prettify());
    }

    /**
     * A tree deeper than any workspace path can name: its own error code (not a quota overrun),
     * nothing stored, the directory still deleted, and a handful of log lines, not one per level.
     */
    @Test
    void aTreeTooDeepToStoreIsItsOwnErrorAndBarelyLogs() {
        String ws = workspace(Map.of("name", "deep"));
        upload(ws, "keep.txt", "keep");
        Set<Path> before = workspaceDirs();
        List<java.util.logging.LogRecord> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
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
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.addHandler(handler);
        try {
            JsonPath result = await(submit(Map.of("language", "python", "workspace", ws, "code", String.join("\n",
                    "import os",
                    "for i in range(3000):",
                    "    os.mkdir('d')",
                    "    os.chdir('d')",
                    "open('bottom.txt', 'w').write('x')"))));
            assertEquals("error", result.getString("status"), result.prettify());
            assertEquals("workspace_unstorable", result.getString("error.code"), result.prettify());
            assertTrue(result.getString("error.message").contains("1024 bytes"), result.prettify());
            assertEquals(1, files(ws).getInt("version"));
            assertEquals(List.of("keep.txt"), files(ws).getList("items.path"));
            waitFor(() -> before.containsAll(workspaceDirs()), "the run's directory to be deleted");
        } finally {
            root.removeHandler(handler);
        }
        long chars = warnings.stream().mapToLong(r -> String.valueOf(r.getMessage()).length()
                + java.util.Arrays.toString(r.getParameters()).length()).sum();
        assertTrue(warnings.size() <= 5 && chars < 20_000, warnings.size() + " warnings, " + chars + " characters");
    }

    /**
     * Two names that differ only in bytes that are not UTF-8 would read back as one path, and one
     * file would be lost without a word: the run is refused instead, naming why.
     */
    @Test
    void fileNamesThatAreNotUtf8AreRefusedNotMerged() {
        String ws = workspace(Map.of("name", "bytes"));
        upload(ws, "keep.txt", "keep");
        JsonPath result = await(submit(Map.of("language", "python", "workspace", ws, "code", String.join("\n",
                "open(b'name-\\xff', 'w').write('first')",
                "open(b'name-\\xfe', 'w').write('second')",
                "open('other.txt', 'w').write('third')"))));
        assertEquals("error", result.getString("status"), result.prettify());
        assertEquals("workspace_unstorable", result.getString("error.code"), result.prettify());
        assertTrue(result.getString("error.message").contains("not valid UTF-8"), result.prettify());
        assertEquals(1, files(ws).getInt("version"));
        assertEquals(List.of("keep.txt"), files(ws).getList("items.path"));
        // a name that is valid UTF-8 outside ASCII is stored as it is
        JsonPath fine = await(submit(Map.of("language", "python", "workspace", ws,
                "code", "open('na\u00efve-\uFFFD.txt', 'w').write('ok')")));
        assertEquals("succeeded", fine.getString("status"), fine.prettify());
        assertTrue(files(ws).getList("items.path").contains("na\u00efve-\uFFFD.txt"), files(ws).prettify());
    }
}

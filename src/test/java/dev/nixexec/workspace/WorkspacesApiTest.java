package dev.nixexec.workspace;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workspaces, input files and artifacts end to end: real PostgreSQL, nix and bubblewrap. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class WorkspacesApiTest {

    String member;
    String other;


    static String key() {
        String tenant = read(as(ADMIN).body(Map.of("name", "ws-" + UUID.randomUUID().toString().substring(0, 8)))
                .post("/v1/admin/tenants").then().statusCode(201).extract().asString(), "id");
        return read(as(ADMIN).body(Map.of("role", "member")).post("/v1/admin/tenants/" + tenant + "/keys")
                .then().statusCode(201).extract().asString(), "key");
    }

    @BeforeEach
    void tenants() {
        member = key();
        other = key();
    }

    String workspace(Map<String, Object> body) {
        return read(as(member).body(body).post("/v1/workspaces").then().statusCode(201)
                .header("Location", startsWith("/v1/workspaces/")).extract().asString(), "id");
    }

    void upload(String ws, String path, byte[] content, int status) {
        as(member).contentType("application/octet-stream").body(content)
                .put("/v1/workspaces/" + ws + "/files/" + path).then().statusCode(status);
    }

    JsonPath run(Map<String, Object> body) {
        return await(submit(body));
    }

    String submit(Map<String, Object> body) {
        return read(as(member).body(body).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
    }

    JsonPath await(String id) {
        return as(member).get("/v1/jobs/" + id + "?wait=60").then().statusCode(200).extract().jsonPath();
    }

    JsonPath files(String ws) {
        return as(member).get("/v1/workspaces/" + ws + "/files").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void filesAreStoredListedServedAndDeletedWithinTheTenant() throws Exception {
        String ws = workspace(Map.of("name", "data"));
        as(member).body(Map.of("name", "data")).post("/v1/workspaces").then().statusCode(409);
        byte[] csv = "a,b\n1,2\n".getBytes(StandardCharsets.UTF_8);
        upload(ws, "in/data.csv", csv, 200);
        JsonPath listing = files(ws);
        assertEquals(List.of("in/data.csv"), listing.getList("items.path"));
        assertEquals(csv.length, listing.getInt("items[0].size"));
        assertEquals(HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(csv)),
                listing.getString("items[0].sha256"));
        assertEquals(1, listing.getInt("version"));
        Response download = as(member).get("/v1/workspaces/" + ws + "/files/in/data.csv");
        assertEquals(200, download.statusCode());
        assertTrue(download.contentType().startsWith("text/csv"), download.contentType());
        assertArrayEquals(csv, download.asByteArray());
        as(member).get("/v1/workspaces/" + ws).then().statusCode(200).body(json("files", equalTo(1)))
                .body(json("bytes", equalTo(csv.length))).body(json("name", equalTo("data")));
        as(member).get("/v1/workspaces").then().statusCode(200).body(json("items.name", equalTo(List.of("data"))));

        // another tenant sees nothing of it
        as(other).get("/v1/workspaces/" + ws).then().statusCode(404)
                .contentType("application/problem+json");
        as(other).get("/v1/workspaces/" + ws + "/files/in/data.csv").then().statusCode(404);
        as(other).contentType("application/octet-stream").body(csv).put("/v1/workspaces/" + ws + "/files/x")
                .then().statusCode(404);
        as(other).delete("/v1/workspaces/" + ws).then().statusCode(404);
        as(other).get("/v1/workspaces").then().statusCode(200).body(json("items", hasSize(0)));
        as(other).body(Map.of("language", "bash", "code", "true", "workspace", ws)).post("/v1/jobs")
                .then().statusCode(404);

        as(member).delete("/v1/workspaces/" + ws + "/files/in/data.csv").then().statusCode(204);
        as(member).get("/v1/workspaces/" + ws + "/files/in/data.csv").then().statusCode(404);
        as(member).delete("/v1/workspaces/" + ws).then().statusCode(204);
        as(member).get("/v1/workspaces/" + ws).then().statusCode(404);
    }

    @Test
    void pathsThatLeaveTheWorkspaceAreRefused() {
        String ws = workspace(Map.of("name", "paths"));
        for (String bad : List.of("..%2Fescape", "a%2F..%2F..%2Fescape", "%2Fetc%2Fpasswd", "a%2F%2Fb", "a%2F.%2Fb")) {
            as(member).contentType("application/octet-stream").body(new byte[] {1})
                    .urlEncodingEnabled(false).put("/v1/workspaces/" + ws + "/files/" + bad)
                    .then().statusCode(400).contentType("application/problem+json");
        }
        for (String bad : List.of("../x", "/etc/passwd", "/proc/self/root/etc/passwd", "a/../../x", "a\\b")) {
            as(member).body(Map.of("language", "bash", "code", "true", "workspace", ws,
                    "files", List.of(Map.of("path", bad, "content", "x")))).post("/v1/jobs")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("files[0].path")));
            as(member).body(Map.of("language", "bash", "code", "true", "artifacts", List.of(bad))).post("/v1/jobs")
                    .then().statusCode(400).body(json("errors[0].field", equalTo("artifacts[0]")));
        }
        assertEquals(0, files(ws).getList("items").size());
        assertEquals(0, files(ws).getInt("version"));
    }

    @Test
    void aFileWrittenByOneJobIsReadByTheNextWithItsJobOnTheVersion() {
        String ws = workspace(Map.of("name", "state"));
        upload(ws, "numbers.txt", "1\n2\n3\n".getBytes(StandardCharsets.UTF_8), 200);
        JsonPath first = run(Map.of("language", "python", "workspace", ws, "code", String.join("\n",
                "nums = [int(l) for l in open('numbers.txt')]",
                "extra = open('input/extra.txt').read().strip()",
                "open('sums.csv', 'w').write(f'sum,{sum(nums)}\\nextra,{extra}\\n')",
                "import os; os.remove('numbers.txt')"),
                "files", List.of(Map.of("path", "input/extra.txt", "content", Base64.getEncoder()
                        .encodeToString("forty-two".getBytes(StandardCharsets.UTF_8)), "encoding", "base64"))));
        assertEquals("succeeded", first.getString("status"), first.prettify());
        JsonPath listing = files(ws);
        assertEquals(List.of("input/extra.txt", "sums.csv"), listing.getList("items.path"));
        as(member).get("/v1/workspaces/" + ws).then().body(json("version", equalTo(2)))
                .body(json("version_job_id", equalTo(first.getString("id"))));

        JsonPath second = run(Map.of("language", "bash", "workspace", "state", "code", "cat sums.csv; ls"));
        assertEquals("succeeded", second.getString("status"), second.prettify());
        assertEquals("sum,6\nextra,forty-two\ninput\nsums.csv\n", second.getString("stdout"));
        // a job that changes nothing makes no version
        as(member).get("/v1/workspaces/" + ws).then().body(json("version", equalTo(2)));
    }

    @Test
    void linksAndSpecialFilesNeverLeaveTheSandbox() {
        String ws = workspace(Map.of("name", "links"));
        JsonPath job = run(Map.of("language", "python", "workspace", ws, "code", String.join("\n",
                "import os",
                "os.makedirs('out')",
                "os.symlink('/etc/passwd', 'passwd')",
                "os.symlink('/proc/self/root', 'root')",
                "os.symlink('/proc/self/root/etc/hostname', 'out/host.png')",
                "os.symlink('..', 'out/up')",
                "os.mkfifo('pipe')",
                "open('kept.txt', 'w').write('kept')",
                "print('done')")));
        assertEquals("succeeded", job.getString("status"), job.prettify());
        assertEquals(List.of("kept.txt"), files(ws).getList("items.path"));
        assertEquals(List.of(), job.getList("artifacts"));
    }

    @Test
    void aJobThatWritesPastTheQuotaErrsAndTheWorkspaceKeepsItsVersion() {
        String ws = workspace(Map.of("name", "small", "quota_bytes", 4096, "quota_files", 10));
        upload(ws, "keep.txt", "keep".getBytes(StandardCharsets.UTF_8), 200);
        as(member).contentType("application/octet-stream").body(new byte[5000])
                .put("/v1/workspaces/" + ws + "/files/big.bin").then().statusCode(413)
                .body(json("detail", containsString("quota")));

        // past the quota at the end: nothing is stored
        JsonPath atEnd = run(Map.of("language", "bash", "workspace", ws,
                "code", "head -c 8000 /dev/zero > big.bin; echo new > keep.txt"));
        assertEquals("error", atEnd.getString("status"), atEnd.prettify());
        assertEquals("workspace_quota_exceeded", atEnd.getString("error.code"));
        // past the quota while running: the watcher stops the run long before its timeout
        JsonPath whileRunning = run(Map.of("language", "bash", "workspace", ws, "timeout", 50,
                "code", "head -c 100000 /dev/zero > big.bin; sleep 45"));
        assertEquals("error", whileRunning.getString("status"), whileRunning.prettify());
        assertEquals("workspace_quota_exceeded", whileRunning.getString("error.code"));
        assertEquals("workspace", whileRunning.getString("limit_hit"));

        assertEquals(List.of("keep.txt"), files(ws).getList("items.path"));
        assertEquals(1, files(ws).getInt("version"));
        assertEquals("keep", as(member).get("/v1/workspaces/" + ws + "/files/keep.txt").asString());
    }

    @Test
    void concurrentJobsOnOneWorkspaceNeverLoseWritesSilently() {
        String ws = workspace(Map.of("name", "shared"));
        upload(ws, "counter.txt", "0".getBytes(StandardCharsets.UTF_8), 200);
        // both read version 1, both change counter.txt: one is stored, the other is told
        List<String> same = List.of("a", "b").stream().map(tag -> submit(Map.of("language", "bash", "workspace", ws,
                "code", "sleep 2; echo " + tag + " > counter.txt; echo " + tag + " > " + tag + ".txt"))).toList();
        List<JsonPath> results = same.stream().map(this::await).toList();
        List<String> statuses = results.stream().map(r -> r.getString("status")).sorted().toList();
        assertEquals(List.of("error", "succeeded"), statuses, results.toString());
        JsonPath winner = results.stream().filter(r -> r.getString("status").equals("succeeded")).findFirst().orElseThrow();
        JsonPath loser = results.stream().filter(r -> r.getString("status").equals("error")).findFirst().orElseThrow();
        assertEquals("workspace_conflict", loser.getString("error.code"));
        assertTrue(loser.getString("error.message").contains("counter.txt"), loser.getString("error.message"));
        String tag = as(member).get("/v1/workspaces/" + ws + "/files/counter.txt").asString().strip();
        assertEquals(List.of(tag + ".txt", "counter.txt"), files(ws).getList("items.path"));
        as(member).get("/v1/workspaces/" + ws).then().body(json("version_job_id", equalTo(winner.getString("id"))));

        // changes of different files both land
        List<String> apart = List.of("x", "y").stream().map(t -> submit(Map.of("language", "bash", "workspace", ws,
                "code", "sleep 2; echo " + t + " > " + t + ".txt"))).toList();
        apart.stream().map(this::await).forEach(r -> assertEquals("succeeded", r.getString("status"), r.prettify()));
        assertTrue(files(ws).getList("items.path").containsAll(List.of("x.txt", "y.txt")), files(ws).prettify());
    }

    @Test
    void filesUnderOutComeBackAsArtifactsWithoutAWorkspace() {
        JsonPath job = run(Map.of("language", "python", "packages", List.of("python3Packages.tinypng"),
                "files", List.of(Map.of("path", "colour.txt", "content", "200")),
                "code", String.join("\n",
                        "import os, tinypng",
                        "red = int(open('colour.txt').read())",
                        "os.makedirs('out/deep')",
                        "tinypng.write('out/plot.png', 16, 8, lambda x, y: (red, x * 16, y * 32))",
                        "open('out/deep/report.txt', 'w').write('red=%d' % red)",
                        "open('scratch.txt', 'w').write('not an artifact')")));
        assertEquals("succeeded", job.getString("status"), job.prettify());
        assertEquals(List.of("out/deep/report.txt", "out/plot.png"), job.getList("artifacts.name"));
        assertEquals("image/png", job.getString("artifacts[1].content_type"));
        String url = job.getString("artifacts[1].url");
        assertEquals("/v1/jobs/" + job.getString("id") + "/artifacts/out/plot.png", url);
        Response png = as(member).get(url);
        assertEquals(200, png.statusCode());
        assertEquals("image/png", png.contentType());
        byte[] bytes = png.asByteArray();
        assertEquals(job.getLong("artifacts[1].size"), bytes.length);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'},
                java.util.Arrays.copyOf(bytes, 8));
        assertEquals("red=200", as(member).get(job.getString("artifacts[0].url")).asString());
        as(other).get(url).then().statusCode(404);
    }
}

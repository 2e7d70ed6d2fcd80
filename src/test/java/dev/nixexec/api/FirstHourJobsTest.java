package dev.nixexec.api;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.sandbox.Cgroups;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a new user meets in a plain REST job (issue 38): output printed before a kill is kept in
 * every language, hello-world prints nothing on stderr, a refused fork says {@code processes},
 * and files under /workspace/out come back as artifacts without asking.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class FirstHourJobsTest {

    @Inject
    Cgroups cgroups;

    String member;

    @BeforeEach
    void key() {
        member = memberKey("firsthour");
    }

    private JsonPath run(Map<String, Object> body) {
        return as(member).body(body).post("/v1/jobs?wait=120").then().statusCode(200).extract().jsonPath();
    }

    /** Prints "progress" (no newline: a line buffer would not save it either), then outlives its timeout. */
    private static final Map<String, String> PRINT_THEN_HANG = Map.of(
            "python", "import time\nprint('progress', end='')\ntime.sleep(30)\n",
            "bash", "printf progress\nsleep 30\n",
            "node", "process.stdout.write('progress');\nsetTimeout(() => {}, 30000);\n",
            "haskell", "import Control.Concurrent\nmain :: IO ()\nmain = do\n  putStr \"progress\"\n  threadDelay 30000000\n",
            "lua", "io.write('progress')\nlocal t = os.time()\nwhile os.time() - t < 30 do end\n",
            "ruby", "print 'progress'\nsleep 30\n",
            "perl", "print 'progress';\nsleep 30;\n",
            "octave", "printf('progress');\npause(30);\n");

    @Test
    void outputPrintedBeforeATimeoutIsKeptInEveryLanguage() {
        for (Map.Entry<String, String> language : PRINT_THEN_HANG.entrySet()) {
            JsonPath job = run(Map.of("language", language.getKey(), "code", language.getValue(), "timeout", "3s"));
            assertEquals("timed_out", job.getString("status"), language.getKey() + ": " + job.prettify());
            assertEquals("progress", job.getString("stdout"), language.getKey() + ": " + job.prettify());
        }
    }

    @Test
    void outputPrintedBeforeAMemoryKillIsKept() {
        Assumptions.assumeTrue(cgroups.available(), "the memory limit needs cgroups");
        JsonPath job = run(Map.of("language", "python", "code", "print('loading')\ns = 'x' * (200 * 1024 * 1024)\n",
                "limits", Map.of("memory", "64MiB")));
        assertEquals("memory", job.getString("limit_hit"), job.prettify());
        assertEquals("loading\n", job.getString("stdout"), job.prettify());
    }

    private static final Map<String, String> HELLO = Map.of(
            "python", "print('hello')\n",
            "bash", "echo hello\n",
            "node", "console.log('hello');\n",
            "haskell", "main :: IO ()\nmain = putStrLn \"hello\"\n",
            "lua", "print('hello')\n",
            "ruby", "puts 'hello'\n",
            "perl", "print \"hello\\n\";\n",
            "octave", "disp('hello')\n");

    @Test
    void helloWorldPrintsNothingOnStderrInEveryLanguage() {
        for (Map.Entry<String, String> language : HELLO.entrySet()) {
            JsonPath job = run(Map.of("language", language.getKey(), "code", language.getValue()));
            assertEquals("succeeded", job.getString("status"), language.getKey() + ": " + job.prettify());
            assertEquals("hello\n", job.getString("stdout"), language.getKey() + ": " + job.prettify());
            assertEquals("", job.getString("stderr"), language.getKey() + ": " + job.prettify());
        }
    }

    @Test
    void aForkTheProcessLimitRefusedSaysProcesses() {
        Assumptions.assumeTrue(cgroups.limitsProcesses(), "the process limit is told by the pids cgroup");
        JsonPath job = run(Map.of("language", "python", "limits", Map.of("pids", 16), "code", """
                import os, time
                children = []
                try:
                    for _ in range(64):
                        pid = os.fork()
                        if pid == 0:
                            time.sleep(5)
                            os._exit(0)
                        children.append(pid)
                except OSError as e:
                    print('refused after', len(children), e.strerror)
                """));
        assertEquals("processes", job.getString("limit_hit"), job.prettify());
        assertTrue(job.getString("stdout").startsWith("refused after"), job.prettify());
    }

    @Test
    void filesUnderOutAreArtifactsOfAPlainJob() {
        JsonPath job = run(Map.of("language", "python", "code",
                "import os\nos.makedirs('/workspace/out', exist_ok=True)\n"
                        + "open('/workspace/out/chart.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(100))\n"
                        + "open('/workspace/scratch.txt', 'w').write('not an artifact')\n"));
        assertEquals("succeeded", job.getString("status"), job.prettify());
        assertEquals(List.of("out/chart.png"), job.getList("artifacts.name"), job.prettify());
        assertEquals(108, job.getInt("artifacts[0].size"));
        byte[] png = as(member).get(job.getString("artifacts[0].url")).then().statusCode(200).extract().asByteArray();
        assertEquals(108, png.length);
        // a job that leaves nothing there returns none
        JsonPath plain = run(Map.of("language", "python", "code", "print(1)"));
        assertEquals(List.of(), plain.getList("artifacts"), plain.prettify());
    }
}

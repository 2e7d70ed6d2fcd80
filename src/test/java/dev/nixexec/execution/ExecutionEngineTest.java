package dev.nixexec.execution;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.run;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.sandbox.StreamName;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Real nix builds against the offline fixture, real bubblewrap. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class ExecutionEngineTest {

    @Inject
    ExecutionEngine engine;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "python | print('hello from python')",
            "bash   | echo \"hello from bash\"",
            "node   | console.log('hello from node')",
            "perl   | print \"hello from perl\\n\";",
            "lua    | print('hello from lua')",
            "ruby   | puts 'hello from ruby'"})
    void helloWorld(String language, String code) {
        ExecutionResult result = run(engine, language, code);
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals("hello from " + language + "\n", stdout(result));
        assertEquals(0, result.exitCode().orElseThrow());
        assertTrue(result.environment().orElseThrow().storePath().startsWith("/nix/store/"));
    }

    @Test
    void setPackageImportableOnlyWhenRequested() {
        String code = "import tinypkg\nprint(tinypkg.hello())";
        ExecutionResult with = Runs.run(engine, ExecutionRequest.of("python", code).withPackages("python3Packages.tinypkg"));
        assertEquals("succeeded", with.status(), describe(with));
        assertEquals("tinypkg ok\n", stdout(with));

        ExecutionResult without = run(engine, "python", code);
        assertEquals("failed", without.status(), describe(without));
        assertTrue(Runs.stderr(without).contains("ModuleNotFoundError"), describe(without));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "perl | perlPackages.TinyPerl    | use TinyPerl; print TinyPerl::hello(), \"\\n\";  | TinyPerl ok",
            "lua  | lua5_4Packages.tinylua   | print(require('tinylua').hello())                 | tinylua ok",
            "ruby | rubyPackages.tinyrb      | require 'tinyrb'; puts Tinyrb.hello               | tinyrb ok"})
    void setPackagesOfOtherLanguages(String language, String pkg, String code, String expected) {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of(language, code).withPackages(pkg));
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals(expected + "\n", stdout(result));
    }

    @Test
    void topLevelPackagesAreOnPath() {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", "hello").withPackages("hello"));
        assertEquals("Hello, world!\n", stdout(result), describe(result));
    }

    @Test
    void envStdinAndExitCodeArrive() {
        ExecutionResult result = Runs.run(engine, new ExecutionRequest("python", """
                import os, sys
                print(os.environ['GREETING'], sys.stdin.read().strip())
                sys.exit(3)
                """, List.of(), Map.of("GREETING", "hello"), "from stdin\n", Optional.empty(), false));
        assertEquals("failed", result.status(), describe(result));
        assertEquals(3, result.exitCode().orElseThrow());
        assertEquals("hello from stdin\n", stdout(result));
    }

    @Test
    void hostEnvironmentDoesNotLeakIn() {
        ExecutionResult result = run(engine, "python", "import os\nprint(sorted(os.environ))");
        // the service's own (docs/sandbox.md), the unbuffered interpreters' among them, and nothing of the host's
        assertEquals("['HOME', 'LANG', 'LOGNAME', 'LUA_INIT', 'PATH', 'PERL5OPT', 'PWD', 'PYTHONUNBUFFERED', 'RUBYOPT', 'TMPDIR', 'USER']\n",
                stdout(result), describe(result));
    }

    @Test
    void secondRunOfAnEnvironmentIsACacheHitWithoutNix() {
        ExecutionRequest request = ExecutionRequest.of("python", "import tinypkg2\nprint(tinypkg2.hello())")
                .withPackages("python3Packages.tinypkg2", "hello");
        ExecutionResult first = Runs.run(engine, request);
        assertEquals("succeeded", first.status(), describe(first));
        int nixRunsBefore = NixSpy.invocations().size();

        ExecutionResult second = Runs.run(engine, request);
        assertEquals("succeeded", second.status(), describe(second));
        assertTrue(second.environment().orElseThrow().cacheHit());
        assertEquals(0, second.environment().orElseThrow().buildMs());
        assertEquals(first.environment().orElseThrow().storePath(), second.environment().orElseThrow().storePath());
        assertEquals(nixRunsBefore, NixSpy.invocations().size(), "a cache hit started a nix process");
    }

    @Test
    void identicalConcurrentRequestsShareOneBuild() {
        ExecutionRequest request = ExecutionRequest.of("lua", "print(require('tinylua').hello())")
                .withPackages("lua5_4Packages.tinylua", "hello");
        long buildsBefore = NixSpy.invocations().stream().filter(l -> l.startsWith("nix build")).count();
        List<CompletableFuture<ExecutionResult>> runs = IntStream.range(0, 3)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> Runs.run(engine, request))).toList();
        runs.forEach(r -> assertEquals("succeeded", r.join().status(), describe(r.join())));
        long builds = NixSpy.invocations().stream().filter(l -> l.startsWith("nix build")).count() - buildsBefore;
        assertEquals(1, builds);
    }

    @Test
    void outputStreamsWhileTheCodeRuns() {
        long start = System.nanoTime();
        List<Long> arrivals = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<ExecutionEvent> events = Runs.execute(engine, ExecutionRequest.of("python", """
                import sys, time
                print('first', flush=True)
                print('oops', file=sys.stderr, flush=True)
                time.sleep(1.5)
                print('second', flush=True)
                """)).onItem().invoke(e -> arrivals.add(System.nanoTime() - start))
                .collect().asList().await().atMost(Duration.ofMinutes(2));
        assertInstanceOf(ExecutionEvent.Finished.class, events.get(events.size() - 1));
        int firstOutput = -1;
        StringBuilder err = new StringBuilder();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof ExecutionEvent.Output output) {
                if (firstOutput < 0 && output.stream() == StreamName.STDOUT) {
                    firstOutput = i;
                }
                if (output.stream() == StreamName.STDERR) {
                    err.append(new String(output.data(), StandardCharsets.UTF_8));
                }
            }
        }
        // unbuffered (PYTHONUNBUFFERED): print writes the text and its newline apart
        assertEquals("first", new String(((ExecutionEvent.Output) events.get(firstOutput)).data(), StandardCharsets.UTF_8).strip());
        assertEquals("oops\n", err.toString());
        long gap = arrivals.get(arrivals.size() - 1) - arrivals.get(firstOutput);
        assertTrue(gap > Duration.ofMillis(1000).toNanos(), "first output arrived only at the end");
    }

    @Test
    void unknownPackageIsAnErrorNamingIt() {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("python", "print(1)")
                .withPackages("python3Packages.doesnotexist"));
        assertEquals("error", result.status());
        assertEquals("unknown_package", result.error().orElseThrow().code());
        assertTrue(result.error().orElseThrow().message().contains("python3Packages.doesnotexist"));
        assertFalse(result.exitCode().isPresent());
    }

    @Test
    void unknownTopLevelPackageToo() {
        ExecutionResult result = Runs.run(engine, ExecutionRequest.of("bash", "true").withPackages("nope.sub"));
        assertEquals("unknown_package", result.error().orElseThrow().code(), describe(result));
        assertTrue(result.error().orElseThrow().message().contains("'nope.sub'"));
    }
}

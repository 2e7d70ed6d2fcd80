package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A first request with a new package set on a worker that never saw it, to its first output:
 * cold build, copy from the fleet's cache, cache hit. Each run has a package set of its own
 * ({@link FleetFixture}): worker A builds it cold and publishes it; A's paths leave the host's
 * store; worker B copies it; B asks again (a hit). "First output" is the environment's program's
 * first line, run directly (the sandbox adds ~24 ms, see the engine table). Run with
 * {@code ./mvnw test -Pbenchmark -Dtest=FleetCacheBenchmark}; it asserts nothing about speed.
 */
@QuarkusTest
@Tag("benchmark")
class FleetCacheBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 5);

    @Inject
    NixExecConfig config;

    @Inject
    ObjectMapper json;

    record Case(String name, EnvironmentRequest request, List<String> program, String output) {
    }

    @Test
    void coldBuildVersusCopyVersusHit() throws Exception {
        List<Case> cases = List.of(
                new Case("bash + hello (6 paths)", EnvironmentRequest.of(Language.BASH, List.of(PackageName.parse("hello"))),
                        List.of("bin/hello"), "Hello, world!\n"),
                new Case("python (6 paths, 50 MB)", EnvironmentRequest.of(Language.PYTHON, List.of()),
                        List.of("bin/python3", "-c", "print(1)"), "1\n"));
        List<String> rows = new ArrayList<>();
        for (Case c : cases) {
            List<Double> cold = new ArrayList<>();
            List<Double> copy = new ArrayList<>();
            List<Double> hit = new ArrayList<>();
            for (int run = 0; run < RUNS; run++) {
                FleetFixture.Fleet fleet = FleetFixture.create();
                FleetWorker a = FleetWorker.of(config, json, fleet.dir().resolve("a"), fleet,
                        Optional.of(fleet.secretKey()), List.of(), List.of());
                long t0 = System.nanoTime();
                Environment built = a.cache().get(c.request());
                firstOutput(built, c);
                cold.add(ms(t0));
                assertTrue(a.fleet().publish(built.storePath()).join());
                Files.delete(a.paths().cacheDir().resolve("gcroots").resolve(built.cacheKey()));
                List<String> delete = new ArrayList<>(List.of("nix-store", "--delete"));
                delete.addAll(built.closure());
                FleetFixture.run(delete);
                assertFalse(Files.exists(Path.of(built.storePath())));

                FleetWorker b = FleetWorker.of(config, json, fleet.dir().resolve("b"), fleet, Optional.empty(),
                        List.of(fleet.publicKey()), List.of("max-jobs=0"));
                long t1 = System.nanoTime();
                Environment copied = b.cache().get(c.request());
                firstOutput(copied, c);
                copy.add(ms(t1));
                long t2 = System.nanoTime();
                Environment again = b.cache().get(c.request());
                firstOutput(again, c);
                hit.add(ms(t2));
                assertTrue(again.cacheHit());
            }
            rows.add(row(c.name() + ", cold build", cold));
            rows.add(row(c.name() + ", copy from the fleet cache", copy));
            rows.add(row(c.name() + ", cache hit", hit));
        }
        String table = "| what (ms to first output) | p50 | min | max |\n|---|---|---|---|\n" + String.join("\n", rows) + "\n";
        System.out.println(table);
        Files.writeString(Path.of("target", "fleet-benchmark.md"), table);
    }

    private static void firstOutput(Environment environment, Case c) throws Exception {
        List<String> argv = new ArrayList<>(c.program());
        argv.set(0, environment.storePath() + "/" + argv.get(0));
        assertEquals(c.output(), FleetFixture.run(argv));
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }

    private static String row(String what, List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return String.format("| %s | %.0f | %.0f | %.0f |", what, sorted.get(sorted.size() / 2), sorted.getFirst(),
                sorted.getLast());
    }
}

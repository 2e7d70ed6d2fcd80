package dev.nixexec.execution;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stderr;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Haskell and Octave jobs for real (real nix build against the offline fixture, real bubblewrap):
 * the interpreter runs, and a member of the package set is usable only when the job asks for it.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class HaskellAndOctaveJobsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Inject
    ExecutionEngine engine;

    private ExecutionResult run(String language, String code, String... packages) {
        return Runs.run(engine, ExecutionRequest.of(language, code).withPackages(packages).withTimeout(TIMEOUT));
    }

    @Test
    void haskellRunsWithRunhaskell() {
        ExecutionResult result = run("haskell", "main :: IO ()\nmain = putStrLn (\"hello from \" ++ \"haskell\")\n");
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals("hello from haskell\n", stdout(result));
    }

    @Test
    void haskellSetPackageImportableOnlyWhenRequested() {
        String code = "import Data.List.Split (splitOn)\nmain :: IO ()\nmain = print (splitOn \",\" \"a,b,c\")\n";
        ExecutionResult with = run("haskell", code, "haskellPackages.split");
        assertEquals("succeeded", with.status(), describe(with));
        assertEquals("[\"a\",\"b\",\"c\"]\n", stdout(with));

        ExecutionResult without = run("haskell", code);
        assertEquals("failed", without.status(), describe(without));
        assertTrue(stderr(without).contains("Could not find module"), describe(without));
    }

    /** text comes with GHC: nixpkgs' haskellPackages.text is null, and asking for it is still fine. */
    @Test
    void haskellBootPackageTextIsUsable() {
        ExecutionResult result = run("haskell", """
                import qualified Data.Text as T
                main :: IO ()
                main = putStrLn (T.unpack (T.toUpper (T.pack "text ok")))
                """, "haskellPackages.text");
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals("TEXT OK\n", stdout(result));
    }

    @Test
    void octaveRunsWithOctaveCli() {
        ExecutionResult result = run("octave", "x = [1 2; 3 4] * [1; 1];\nprintf('hello from octave %d %d\\n', x);\n");
        assertEquals("succeeded", result.status(), describe(result));
        assertEquals("hello from octave 3 7\n", stdout(result));
    }

    @Test
    void octavePackageLoadsOnlyWhenRequested() {
        String code = "pkg load statistics\nprintf('%.4f\\n', normcdf(0));\n";
        ExecutionResult with = run("octave", code, "octavePackages.statistics");
        assertEquals("succeeded", with.status(), describe(with));
        assertEquals("0.5000\n", stdout(with));

        ExecutionResult without = run("octave", code);
        assertEquals("failed", without.status(), describe(without));
        assertTrue(stderr(without).contains("statistics"), describe(without));
    }
}

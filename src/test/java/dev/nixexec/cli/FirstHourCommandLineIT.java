package dev.nixexec.cli;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.CommandLine.Outcome;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The command line as a new user meets it (issue 38): {@code run --out} saves the artifacts, a
 * failed session's name can be used again, Tab completes session names (bash itself, the script
 * {@code completion bash} prints, this very command asking the running server), and {@code enter}
 * gives the terminal back before it prints its last line (a real pseudo-terminal, from script(1)).
 */
@QuarkusIntegrationTest
class FirstHourCommandLineIT {

    @TestHTTPResource("/")
    URL base;

    private CommandLine as(String key) {
        return CommandLine.against(base.toString(), key);
    }

    @Test
    void runOutSavesTheJobsArtifacts() throws Exception {
        CommandLine cli = as(memberKey("cli-out"));
        Path dir = Files.createTempDirectory("nix-exec-out").resolve("results");
        Outcome run = cli.run("run", "-l", "python", "--out", dir.toString(), """
                import os
                os.makedirs('/workspace/out/data', exist_ok=True)
                open('/workspace/out/chart.png', 'wb').write(bytes(range(256)))
                open('/workspace/out/data/rows.csv', 'w').write('x,y\\n1,2\\n')
                print('plotted')
                """);
        assertEquals(new Outcome(0, "plotted\n", ""), run);
        byte[] expected = new byte[256];
        for (int i = 0; i < 256; i++) {
            expected[i] = (byte) i;
        }
        assertArrayEquals(expected, Files.readAllBytes(dir.resolve("chart.png")));
        assertEquals("x,y\n1,2\n", Files.readString(dir.resolve("data/rows.csv")));

        // a DIR that is a file is refused before anything runs
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        Outcome refused = cli.run("run", "-l", "python", "--out", file.toString(), "print(1)");
        assertEquals(Exit.USAGE.code, refused.exit(), refused.toString());
        assertEquals("", refused.stdout(), refused.toString());
        assertTrue(refused.stderr().contains("is not a directory"), refused.toString());
    }

    @Test
    void aFailedSessionFreesItsName() throws Exception {
        CommandLine cli = as(memberKey("cli-rename"));
        Outcome failed = cli.run("create", "--name", "work", "--with", "no-such-package-qq");
        assertEquals(Exit.COULD_NOT_RUN.code, failed.exit(), failed.toString());
        Outcome again = cli.run("create", "--name", "work", "--with", "jq");
        assertEquals(0, again.exit(), again.toString());
        assertTrue(cli.run("status", "work").stdout().contains("status: ready"));
        assertEquals(new Outcome(0, "1\n", ""), cli.run("exec", "work", "--", "jq", "-n", "1"));
        // a live session keeps its name
        Outcome taken = cli.run("create", "--name", "work");
        assertEquals(Exit.REFUSED.code, taken.exit(), taken.toString());
    }

    @Test
    void tabCompletesSessionNames() throws Exception {
        String key = memberKey("cli-complete");
        CommandLine cli = as(key);
        for (String name : List.of("alpha-one", "alpha-two", "beta")) {
            Outcome created = cli.run("create", "--name", name);
            assertEquals(0, created.exit(), created.toString());
        }
        Outcome script = cli.run("completion", "bash");
        assertEquals(0, script.exit(), script.toString());
        Path file = Files.createTempFile("nix-exec-completion", ".bash");
        Files.writeString(file, script.stdout());
        CommandLine bash = cli.with(Map.of("PATH", CommandLine.COMMAND.getParent() + ":" + System.getenv("PATH")));
        assertEquals(List.of("alpha-one", "alpha-two"), complete(bash, file, "nix-exec enter al"));
        assertEquals(List.of("alpha-one", "alpha-two", "beta"), complete(bash, file, "nix-exec status "));
        assertEquals(List.of("beta"), complete(bash, file, "nix-exec exec -e A=1 --timeout 5s b"));
        // --server and --key on the line are the ones asked
        assertEquals(List.of("beta"), complete(bash.with(Map.of("NIXEXEC_SERVER", "http://127.0.0.1:9", "NIXEXEC_KEY", "nx_wrong")),
                file, "nix-exec destroy --server " + base + " --key " + key + " b"));
        // and so are they before the command's name
        assertEquals(List.of("beta"), complete(bash.with(Map.of("NIXEXEC_SERVER", "http://127.0.0.1:9", "NIXEXEC_KEY", "nx_wrong")),
                file, "nix-exec --server " + base + " --json --key " + key + " status b"));
        // not where a session goes: the command's words, its options, the program after --
        assertEquals(List.of("create"), complete(bash, file, "nix-exec cre"));
        assertFalse(complete(bash, file, "nix-exec exec alpha-one -- al").contains("alpha-one"));
        assertTrue(complete(bash, file, "nix-exec enter --").contains("--json"));
        Outcome zsh = as(null).run("completion", "zsh");
        assertEquals(Exit.USAGE.code, zsh.exit(), zsh.toString());
    }

    /** What bash's completion offers for {@code line}, the cursor at its end. */
    private static List<String> complete(CommandLine bash, Path script, String line) throws Exception {
        List<String> words = List.of(line.split(" ", -1));
        StringBuilder array = new StringBuilder();
        for (String word : words) {
            array.append(" '").append(word).append("'");
        }
        Process process = bash.start(List.of("bash", "-c", "source \"$1\"; COMP_LINE=\"$2\"; COMP_POINT=${#COMP_LINE}; "
                + "COMP_WORDS=(" + array + "); COMP_CWORD=" + (words.size() - 1) + "; "
                + "_nix_exec_complete nix-exec \"${COMP_WORDS[COMP_CWORD]}\"; printf '%s\\n' \"${COMPREPLY[@]}\"",
                "bash", script.toString(), line));
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), out + err);
        return out.lines().filter(l -> !l.isEmpty()).sorted().toList();
    }

    @Test
    void enterGivesTheTerminalBackBeforeItsLastLine() throws Exception {
        CommandLine cli = as(memberKey("cli-restore"));
        assertEquals(0, cli.run("create", "--name", "gone").exit());
        Process script = cli.with(Map.of("NX_COMMAND", CommandLine.COMMAND.toString()))
                .start(List.of("script", "-qec", "exec \"$NX_COMMAND\" enter gone", "/dev/null"));
        StringBuffer screen = new StringBuffer();
        Thread.ofVirtual().start(() -> {
            byte[] buffer = new byte[4096];
            try (var in = script.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    screen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // ended
            }
        });
        try (OutputStream keys = script.getOutputStream()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (screen.indexOf("sandbox:") < 0) {
                assertTrue(System.nanoTime() < deadline, "no prompt:\n" + screen);
                Thread.sleep(50);
            }
            // the session goes while the shell is open: the command tells so in its last line
            assertEquals(0, cli.run("destroy", "gone").exit());
            assertTrue(script.waitFor(60, TimeUnit.SECONDS), screen.toString());
            assertEquals(Exit.SHELL_LOST.code, script.exitValue(), screen.toString());
        } finally {
            script.destroyForcibly();
        }
        // a raw terminal passes "\n" as it is (the next line starts where this one ended); a restored one
        // makes it "\r\n"; and the line is one of its own, not after the shell's prompt
        assertTrue(Pattern.compile("\r\nnix-exec: the shell ended: [^\r\n]*\r\n").matcher(screen).find(),
                "the last line did not end in a restored terminal:\n" + screen.toString().replace("\r", "\\r"));
    }
}

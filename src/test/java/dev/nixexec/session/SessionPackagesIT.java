package dev.nixexec.session;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.CommandLine.Outcome;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * Packages come with their interpreter, through the real {@code target/nix-exec} against the
 * packaged service and real builds of the offline fixture: a session made with members of all six
 * package sets has each language's interpreter loading its member, and a bash job or session has
 * the everyday tools without asking.
 */
@QuarkusIntegrationTest
class SessionPackagesIT {

    /** The everyday tools, each used as a script would: grep, sed, awk, find, diff, tar -z (gzip), zcat. */
    private static final String EVERYDAY = """
            cd /tmp && printf 'b 2\\na 1\\n' > in
            grep -c a in
            sed 's/b/B/' in | sort | awk '{ s += $2 } END { print s }'
            find . -name in
            cp in same && diff in same && echo same
            tar czf in.tgz in && rm in && tar xzf in.tgz && cmp in same && echo restored
            gzip -c in | zcat | head -1
            """;

    @TestHTTPResource("/")
    URL base;

    @Test
    void aSessionsSetMembersComeWithTheirInterpreters() throws Exception {
        CommandLine cli = CommandLine.against(base.toString(), memberKey("packages-sets"));
        Outcome created = cli.run("create", "--name", "sets", "--with", "python3Packages.tinypkg",
                "--with", "haskellPackages.split", "--with", "lua5_4Packages.tinylua", "--with", "rubyPackages.tinyrb",
                "--with", "perlPackages.TinyPerl", "--with", "octavePackages.statistics");
        assertEquals(0, created.exit(), created.toString());

        assertEquals(new Outcome(0, "tinypkg ok\n", ""),
                cli.run("exec", "sets", "--", "python3", "-c", "import tinypkg; print(tinypkg.hello())"));
        // stdout only: perl warns on stderr that the sandbox's LANG (C.UTF-8) has no locale data
        Outcome perl = cli.run("exec", "sets", "--", "perl", "-MTinyPerl", "-e", "print TinyPerl::hello(), qq(\\n)");
        assertEquals(0, perl.exit(), perl.toString());
        assertEquals("TinyPerl ok\n", perl.stdout(), perl.toString());
        assertEquals(new Outcome(0, "tinylua ok\n", ""),
                cli.run("exec", "sets", "--", "lua", "-e", "print(require('tinylua').hello())"));
        assertEquals(new Outcome(0, "tinyrb ok\n", ""),
                cli.run("exec", "sets", "--", "ruby", "-e", "require 'tinyrb'; puts Tinyrb.hello"));
        assertEquals(new Outcome(0, "[\"a\",\"b\"]\n", ""),
                cli.run("exec", "sets", "--", "ghc", "-e", "import Data.List.Split", "-e", "print (splitOn \",\" \"a,b\")"));
        Outcome octave = cli.run("exec", "sets", "--", "octave-cli", "--no-gui", "--quiet", "--norc", "--eval",
                "pkg load statistics; printf('%.4f\\n', normcdf(0));");
        // stdout only: loading statistics warns on stderr that it shadows core functions
        assertEquals(0, octave.exit(), octave.toString());
        assertEquals("0.5000\n", octave.stdout(), octave.toString());
        // a python exec of the same session: its interpreter with its member, the other sets' beside it
        assertEquals(new Outcome(0, "tinypkg ok\ntinylua ok\n", ""), cli.run("exec", "sets", "-l", "python", "--code",
                "import subprocess, tinypkg; print(tinypkg.hello(), flush=True); "
                        + "subprocess.run(['lua', '-e', 'print(require(\"tinylua\").hello())'], check=True)"));
        assertEquals(0, cli.run("destroy", "sets").exit());
    }

    @Test
    void aBashJobAndASessionHaveTheEverydayTools() throws Exception {
        CommandLine cli = CommandLine.against(base.toString(), memberKey("packages-everyday"));
        String expected = "1\n3\n./in\nsame\nrestored\nb 2\n";
        assertEquals(new Outcome(0, expected, ""), cli.run("run", "-l", "bash", EVERYDAY));
        Outcome created = cli.run("create", "--name", "plain");
        assertEquals(0, created.exit(), created.toString());
        assertEquals(new Outcome(0, expected, ""), cli.run("exec", "plain", "--code", EVERYDAY));
        assertEquals(0, cli.run("destroy", "plain").exit());
    }
}

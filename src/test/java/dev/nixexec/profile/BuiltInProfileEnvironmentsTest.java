package dev.nixexec.profile;

import static dev.nixexec.testing.Runs.describe;
import static dev.nixexec.testing.Runs.stdout;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.Runs;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each of nixo's built-in profiles builds into one environment (bash, with the profile's packages
 * as top-level packages and its network setting) from the offline fixture, and every tool in it
 * does its job inside the sandbox: real nix, real bubblewrap.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class BuiltInProfileEnvironmentsTest {

    /** Per package: a bash snippet run in the sandbox and the one line it must print. */
    private record Check(String script, String expected) {
    }

    private static final Map<String, Check> CHECKS = Map.ofEntries(
            Map.entry("coreutils", new Check("ls --version | head -n 1 | cut -d ' ' -f 2-3; seq 3 | sort -r | tr -d '\\n'; echo",
                    "(GNU coreutils)\n321")),
            Map.entry("bash", new Check("echo \"bash ${BASH_VERSINFO[0]}\"", "bash 5")),
            Map.entry("cacert", new Check("""
                    env=$(dirname "$(dirname "$(command -v bash)")")
                    head -n 1 "$env/etc/ssl/certs/ca-bundle.crt\"""", "-----BEGIN CERTIFICATE-----")),
            Map.entry("git", new Check("""
                    (mkdir -p repo && cd repo && git init -q && echo one > f && git add f \
                      && git -c user.name=t -c user.email=t@example.org commit -qm first \
                      && echo two >> f && git diff --numstat && git log --format=%s)""", "1\t0\tf\nfirst")),
            Map.entry("gnugrep", new Check("grep --version | head -n 1 | cut -d ' ' -f 1-2; printf 'a\\nbb\\n' | grep -cE '^b+$'",
                    "grep (GNU\n1")),
            Map.entry("gnused", new Check("sed --version | head -n 1 | cut -d ' ' -f 1-2; echo abc | sed -E 's/(b)/[\\1]/'",
                    "sed (GNU\na[b]c")),
            Map.entry("jq", new Check("echo '{\"a\":[1,2]}' | jq -c '.a | map(. * 2)'", "[2,4]")),
            Map.entry("nodejs", new Check("node -e 'console.log(6 * 7)'", "42")),
            Map.entry("python3", new Check("python3 -c 'import json; print(json.dumps([6 * 7]))'", "[42]")),
            Map.entry("gcc", new Check("""
                    cat > hello.c <<'EOF'
                    #include <stdio.h>
                    #include <math.h>
                    int main(void) { printf("gcc %.2f\\n", sqrt(2.0)); return 0; }
                    EOF
                    gcc -O2 -Wall -o hello hello.c -lm && ./hello""", "gcc 1.41")),
            Map.entry("gnumake", new Check("""
                    mkdir -p mk && printf 'all: out.txt\\n\\tcat out.txt\\nout.txt:\\n\\techo made > out.txt\\n' > mk/Makefile
                    make -s -C mk""", "made")),
            Map.entry("rustc", new Check("""
                    printf 'fn main() { println!("rust {}", 6 * 7); }\\n' > hello.rs
                    rustc -O -o hello-rs hello.rs && ./hello-rs""", "rust 42")),
            Map.entry("cargo", new Check("""
                    (cargo new -q --vcs none hello-cargo && cd hello-cargo && cargo run -q --offline)""", "Hello, world!")),
            Map.entry("curl", new Check("curl --version | head -n 1 | cut -d ' ' -f 1", "curl")),
            Map.entry("netcat", new Check("nc -h 2>&1 | head -n 1 | cut -d ' ' -f 1-2", "OpenBSD netcat")),
            Map.entry("dig", new Check("dig -v 2>&1 | cut -d ' ' -f 1", "DiG")));

    /** With a network, curl fetches from a server on loopback that nc serves. */
    private static final Check LOOPBACK_HTTP = new Check("""
            port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
            printf 'HTTP/1.0 200 OK\\r\\nContent-Length: 9\\r\\n\\r\\nfrom nc\\r\\n' | nc -l 127.0.0.1 "$port" >/dev/null &
            curl -sS --retry 10 --retry-connrefused --retry-delay 1 "http://127.0.0.1:$port/" | tr -d '\\r'
            wait""", "from nc");

    @Inject
    ExecutionEngine engine;

    static Stream<Profile> profiles() {
        return BuiltInProfiles.ALL.stream();
    }

    @ParameterizedTest
    @MethodSource("profiles")
    void everyPackageOfTheProfileWorksInTheSandbox(Profile profile) {
        List<String> packages = profile.spec().packages();
        StringBuilder script = new StringBuilder("set -e\ncd /workspace\n");
        List<String> expected = new ArrayList<>();
        for (String name : packages) {
            Check check = CHECKS.get(name);
            if (check == null) {
                throw new AssertionError("no check for " + name + " of profile " + profile.name() + ": add one");
            }
            script.append(check.script()).append('\n');
            expected.add(check.expected());
        }
        if (profile.spec().network() && packages.containsAll(List.of("curl", "netcat", "python3"))) {
            script.append(LOOPBACK_HTTP.script()).append('\n');
            expected.add(LOOPBACK_HTTP.expected());
        }
        ExecutionRequest request = new ExecutionRequest("bash", script.toString(), packages, Map.of(), "",
                Optional.of(Duration.ofSeconds(60)), profile.spec().network());
        ExecutionResult result = Runs.run(engine, request);
        assertEquals("succeeded", result.status(), profile.name() + ": " + describe(result));
        assertEquals(String.join("\n", expected) + "\n", stdout(result), profile.name() + ": " + describe(result));
    }
}

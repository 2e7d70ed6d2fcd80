#!/usr/bin/env python3
"""How long `nix-exec` (no command: the MCP stdio server) takes from its start to the answer of the
first `initialize`, as an MCP client sees it (docs/benchmarks.md, "The MCP stdio server").

Usage: bench/stdio-initialize.py MODE RUNS [nix-exec flags...]
  MODE local-cold: each run on a new, empty state directory (the embedded PostgreSQL is created)
  MODE local-warm: every run on one state directory, made by a first run not counted
  MODE relay:      NIXEXEC_SERVER (and NIXEXEC_KEY) from the environment; the first run is printed
                   apart as cold (the server's first MCP session, a new JVM for the relay)
Prints each run's seconds and the median. Run from the repository, after ./mvnw package.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COMMAND = os.path.join(os.getcwd(), "target", "nix-exec")
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


def first_initialize(flags, env):
    began = time.monotonic()
    process = subprocess.Popen([COMMAND] + flags, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=env)
    process.stdin.write(INITIALIZE.encode())
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    took = time.monotonic() - began
    assert answer.get("id") == 1 and "result" in answer, answer
    process.stdin.close()
    process.stdout.read()
    process.wait(timeout=120)
    return took


def main():
    mode, runs, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    env = dict(os.environ)
    times = []
    if mode == "relay":
        assert env.get("NIXEXEC_SERVER"), "set NIXEXEC_SERVER"
        print("cold %.2f s" % first_initialize(flags, env))
        times = [first_initialize(flags, env) for _ in range(runs)]
    else:
        env.pop("NIXEXEC_SERVER", None)
        root = tempfile.mkdtemp(prefix="nix-exec-stdio-bench-")
        try:
            if mode == "local-warm":
                env["XDG_STATE_HOME"] = os.path.join(root, "warm")
                first_initialize(flags, env)
            for run in range(runs):
                if mode == "local-cold":
                    env["XDG_STATE_HOME"] = os.path.join(root, "cold-%d" % run)
                times.append(first_initialize(flags, env))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print(mode, " ".join("%.2f" % t for t in times), "median %.2f s" % statistics.median(times))


if __name__ == "__main__":
    main()

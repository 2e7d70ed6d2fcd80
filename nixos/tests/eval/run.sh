#!/usr/bin/env bash
# Evaluates the NixOS module (nixos/module.nix) with lib.evalModules from a pinned nixpkgs lib over
# stub declarations of the NixOS options it sets (stub-nixos.nix), for the hosts in cases.nix:
# assertions, the rendered config.yaml, the systemd unit (systemd-analyze verify) and the start
# script (bash -n). No nixpkgs, nothing is built; see docs/operations.md for what this leaves out.
# NIXPKGS_LIB: the lib directory of a nixpkgs checkout (default ../shared/nixpkgs-lib/lib beside
# the repository).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
lib=${NIXPKGS_LIB:-$root/../shared/nixpkgs-lib/lib}
if [ ! -f "$lib/default.nix" ]; then
  echo "nixos/tests/eval: no nixpkgs lib at $lib (set NIXPKGS_LIB to the lib directory of a nixpkgs checkout)" >&2
  exit 1
fi
lib=$(cd "$lib" && pwd)
for tool in nix-instantiate systemd-analyze python3; do
  command -v "$tool" >/dev/null || { echo "nixos/tests/eval: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nix-instantiate --eval --strict --json "$here/run.nix" --argstr libPath "$lib" --argstr binDir "$work/bin" \
  > "$work/result.json"

python3 - "$work" "$here" "$root/docs/deploy/nix-exec.service" <<'PY'
import json, os, subprocess, sys
work, here, plain_unit = sys.argv[1], sys.argv[2], sys.argv[3]
result = json.load(open(os.path.join(work, "result.json")))
problems = []

for name, case in sorted(result["fail"].items()):
    if sorted(case["failed"]) != sorted(case["expected"]):
        problems.append(f"{name}: failed assertions {case['failed']}, expected {case['expected']}")

for name, case in sorted(result["ok"].items()):
    for what in ("failed", "warnings", "unmet"):
        if case[what]:
            problems.append(f"{name}: {what}: {case[what]}")
    expected_yaml = open(os.path.join(here, case["yaml"])).read().rstrip("\n")
    if case["configYaml"] != expected_yaml:
        problems.append(f"{name}: config.yaml differs from {case['yaml']}:\n  got      {case['configYaml']}\n  expected {expected_yaml}")
    # the start script, as systemd would run it, is the ExecStart binary systemd-analyze looks for
    os.makedirs(os.path.dirname(case["execStart"]), exist_ok=True)
    with open(case["execStart"], "w") as f:
        f.write("#!/usr/bin/env bash\n" + case["startScript"])
    os.chmod(case["execStart"], 0o755)
    check = subprocess.run(["bash", "-n", case["execStart"]], capture_output=True, text=True)
    if check.returncode or check.stdout or check.stderr:
        problems.append(f"{name}: start script: {check.stdout}{check.stderr}")
    unit = os.path.join(work, name, "nix-exec.service")
    os.makedirs(os.path.dirname(unit), exist_ok=True)
    open(unit, "w").write(case["unit"])
    # verify exits 0 on unknown keys and bad values: any output is a failure
    check = subprocess.run(["systemd-analyze", "verify", "--man=no", unit], capture_output=True, text=True)
    if check.returncode or check.stdout or check.stderr:
        problems.append(f"{name}: systemd-analyze verify: {check.stdout}{check.stderr}")

def service_lines(unit):
    """The [Service] section as a set of key=value lines (a key may repeat, e.g. RestrictAddressFamilies)."""
    section, lines = None, set()
    for line in unit.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line and not line.startswith("#"):
            lines.add(line)
    return lines

# The unit for hosts without NixOS: valid, and hardened exactly as the module's single host. Keys
# that name host specifics (paths, the start command, the environment) may differ.
host_specific = ("ExecStart=", "Environment=", "EnvironmentFile=", "LoadCredential=", "ReadWritePaths=")
plain = open(plain_unit).read()
module_lines = {l for l in service_lines(result["ok"]["single-host"]["unit"]) if not l.startswith(host_specific)}
plain_lines = {l for l in service_lines(plain) if not l.startswith(host_specific)}
for line in sorted(module_lines - plain_lines):
    problems.append(f"docs/deploy/nix-exec.service lacks the module's {line}")
for line in sorted(plain_lines - module_lines):
    problems.append(f"docs/deploy/nix-exec.service has {line}, the module's unit does not")
# systemd-analyze looks for the ExecStart binary: point it at a stand-in
java = os.path.join(work, "plain", "java")
os.makedirs(os.path.dirname(java), exist_ok=True)
open(java, "w").write("#!/bin/sh\n")
os.chmod(java, 0o755)
unit = os.path.join(work, "plain", "nix-exec.service")
open(unit, "w").write(plain.replace("ExecStart=/opt/nix-exec/jdk/bin/java", "ExecStart=" + java))
check = subprocess.run(["systemd-analyze", "verify", "--man=no", unit], capture_output=True, text=True)
if check.returncode or check.stdout or check.stderr:
    problems.append(f"docs/deploy/nix-exec.service: systemd-analyze verify: {check.stdout}{check.stderr}")

if problems:
    print("NixOS module evaluation FAILED:\n" + "\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"NixOS module: {len(result['ok'])} hosts evaluated (assertions, config.yaml, systemd-analyze verify, "
      f"bash -n), {len(result['fail'])} refused with the expected assertion; docs/deploy/nix-exec.service verified "
      f"and hardened as the module's unit")
PY

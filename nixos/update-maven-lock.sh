#!/usr/bin/env bash
# Writes nixos/maven-lock.json: every file a build from an EMPTY Maven repository fetches (path,
# Maven Central url, sha256) and the sha256 of the pom.xml it was made for. nixos/package.nix
# builds its Maven repository from it and .ci/run runs all its Maven commands offline against
# only these files, so CI fails when the lock misses one or pom.xml changed without a new lock.
# Runs, in a copy of the working tree (target/ is left alone) and a fresh temporary Maven
# repository (never ~/.m2/repository, which holds leftovers), what CI runs: quarkus:go-offline
# (dev mode's and the tests' application models) and verify with one small test under surefire
# and under failsafe (each resolves its JUnit provider only when a test runs), which compiles,
# packages and runs the Quarkus build. Then checks that Maven Central serves every file.
# Needs network (Maven Central) and a JDK >= 21 (JAVA_HOME or PATH). About 6 minutes here.
# Usage: nixos/update-maven-lock.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
central=https://repo.maven.apache.org/maven2
lock=$root/nixos/maven-lock.json

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
tar -C "$root" --exclude=./target --exclude=node_modules --exclude=./.git -c . | tar -x -C "$work/src"

mvn_fresh() {
  (cd "$work/src" && ./mvnw -B -ntp -Dmaven.repo.local="$work/repository" "$@") >>"$work/maven.log" 2>&1 || {
    tail -n 40 "$work/maven.log" >&2
    echo "update-maven-lock: ./mvnw $* failed (log above)" >&2
    exit 1
  }
}
echo "resolving into an empty Maven repository (downloads about 290 MB)..." >&2
mvn_fresh quarkus:go-offline
mvn_fresh verify -Dtest=SubmissionCheckTest -Dit.test=SubmissionCheckTest

# The walk: the artifacts only. Left out are the resolver's bookkeeping (_remote.repositories,
# *.lastUpdated, resolver-status.properties), the .sha1 files it keeps beside each download (the
# lock's sha256 checks instead), and maven-metadata files (no version range or prefix lookup in
# the offline build needs one; CI proves it).
python3 - "$work/repository" "$work/src/pom.xml" "$central" "$work/maven-lock.json" <<'PY'
import hashlib, json, os, sys
repo, pom, central, out = sys.argv[1:]

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

skipped_names = {"_remote.repositories", "resolver-status.properties"}
files = []
for directory, _, names in os.walk(repo):
    for name in names:
        if name in skipped_names or name.endswith((".lastUpdated", ".sha1")) or name.startswith("maven-metadata"):
            continue
        full = os.path.join(directory, name)
        path = os.path.relpath(full, repo)
        files.append({"path": path, "url": f"{central}/{path}", "sha256": sha256(full)})
files.sort(key=lambda f: f["path"])
with open(out, "w") as f:  # one file a line: a new lock's diff reads as the artifacts it changes
    f.write('{\n "_comment": "Written by nixos/update-maven-lock.sh; read by nixos/package.nix and .ci/run. Do not edit.",\n')
    f.write(f' "pomSha256": "{sha256(pom)}",\n "files": [\n')
    f.write(",\n".join("  " + json.dumps(x) for x in files))
    f.write("\n ]\n}\n")
print(f"{len(files)} files, {sum(os.path.getsize(os.path.join(repo, x['path'])) for x in files) / 1e6:.0f} MB", file=sys.stderr)
PY

# Every url must answer: Maven Central is where nixos/package.nix and a clean CI fetch them from.
python3 - "$work/maven-lock.json" >"$work/urls.curl" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print(f'url = "{f["url"]}"')
    print('output = "/dev/null"')
PY
unserved=$(curl -sS --no-progress-meter --head --parallel --parallel-max 16 --config "$work/urls.curl" -w '%{http_code} %{url}\n' | grep -v '^200 ' || true)
if [ -n "$unserved" ]; then
  echo "$unserved" >&2
  echo "update-maven-lock: Maven Central does not serve the files above; lock not written" >&2
  exit 1
fi
mv "$work/maven-lock.json" "$lock"
echo "wrote $lock" >&2

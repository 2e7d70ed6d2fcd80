#!/usr/bin/env bash
# Pins the flake's package: locks nixpkgs (flake.lock), builds once with a fake mvnHash, takes the
# hash Nix reports for the Maven dependencies ("got: sha256-...") and writes it into flake.nix,
# then builds again with it. Needs network (GitHub for nixpkgs, Maven Central) and a Nix with
# flakes. Run it from anywhere in the repository; again after pom.xml or nixpkgs changes.
# Usage: nixos/update-mvn-hash.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
flake=$repo/flake.nix
nixf() { nix --extra-experimental-features 'nix-command flakes' "$@"; }

if [ "$(grep -c 'mvnHash = [^;]*;' "$flake")" != 1 ]; then
  echo "expected exactly one 'mvnHash = ...;' in $flake" >&2
  exit 1
fi

log=$(mktemp)
backup=$(mktemp)
cp "$flake" "$backup"
trap 'rm -f "$log" "$backup"' EXIT

set_hash() {
  sed -i "s|mvnHash = [^;]*;|mvnHash = $1;|" "$flake"
  if ! nix-instantiate --parse "$flake" >/dev/null; then
    cp "$backup" "$flake"
    echo "flake.nix did not parse after writing mvnHash; restored it" >&2
    exit 1
  fi
}

cd "$repo"
# Creates flake.lock when missing; an existing lock is kept (nix flake update moves nixpkgs).
nixf flake lock

# Start from a fake hash: with the old hash, a stale dependency set already in the store would be
# reused without a download, and no mismatch would show a changed pom.xml.
set_hash 'pkgs.lib.fakeHash'
echo "building with a fake mvnHash to learn the real one (downloads every Maven dependency)..." >&2
if nixf build --no-link .#nix-exec 2>&1 | tee "$log" >&2; then
  cp "$backup" "$flake"
  echo "the build succeeded with a fake hash, which cannot be; flake.nix restored" >&2
  exit 1
fi
hash=$(grep -oE 'got: +sha256-[A-Za-z0-9+/]+=*' "$log" | tail -n 1 | awk '{print $2}' || true)
if [ -z "$hash" ]; then
  cp "$backup" "$flake"
  echo "the build failed without reporting a hash mismatch (see above); flake.nix restored" >&2
  exit 1
fi

set_hash "\"$hash\""
echo "mvnHash = $hash; building again to check it..." >&2
nixf build --no-link .#nix-exec
echo "pinned: commit flake.nix and flake.lock" >&2

#!/bin/bash
# End-to-end check of nix/env.nix + nix/job-flake.nix against the offline
# fixture, run the way the service runs them: every environment is built
# through a job directory with --override-input, then executed in bubblewrap
# with ONLY its closure visible (no /usr, /lib, /etc).
# Needs: nix (flakes), bwrap, /usr/bin/python3. Usage: nix/testing/verify.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
nixdir=$(dirname "$here")
work=$(mktemp -d /tmp/nixexec-verify.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

nixcmd() {
  nix --extra-experimental-features 'nix-command flakes' \
      --option substituters '' --option sandbox false "$@"
}

# `url` of `nix flake metadata --json` is the locked URL (with narHash).
locked=$(nixcmd flake metadata --json "path:$here/nixpkgs" |
  /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# build NAME REQUEST_JSON -> sets $env (store path) or returns 1; stderr in $work/NAME.err
build() {
  local dir=$work/$1
  mkdir -p "$dir"
  cp "$nixdir/job-flake.nix" "$dir/flake.nix"
  cp "$nixdir/env.nix" "$dir/env.nix"
  printf '%s\n' "$2" > "$dir/request.json"
  # The gcroot lives outside the job dir: anything in it would be copied
  # into the flake's source on the next build.
  nixcmd build --json --no-write-lock-file --out-link "$work/$1.root" \
    --override-input nixpkgs "$locked" "path:$dir#default" \
    > "$work/$1.json" 2> "$work/$1.err" || return 1
  env=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["outputs"]["out"])' "$work/$1.json")
}

# run ENV CMD... : only the closure of ENV, plus /proc, /dev and a tmpfs /tmp
run() {
  local e=$1 args=() p
  shift
  for p in $(nix-store -qR "$e"); do args+=(--ro-bind "$p" "$p"); done
  bwrap --unshare-all --die-with-parent --clearenv "${args[@]}" \
    --proc /proc --dev /dev --tmpfs /tmp --chdir /tmp \
    --setenv PATH "$e/bin" --setenv HOME /tmp -- "$@"
}

# expect NAME WANT ENV CMD...
expect() {
  local name=$1 want=$2 e=$3 got
  shift 3
  got=$(run "$e" "$@" 2>&1) || true
  if [ "$got" = "$want" ]; then ok "$name"; else bad "$name: wanted '$want', got '$got'"; fi
}

req() { # req INTERP WITHPKGS SETPKGS PACKAGES
  printf '{"system":"x86_64-linux","interpreter":%s,"with_packages":%s,"set_packages":%s,"packages":%s,"base":[["bash"],["coreutils"]]}' "$@"
}

if build py "$(req '["python3"]' '["python3","withPackages"]' '[{"name":"python3Packages.tinypkg","path":["tinypkg"]},{"name":"python3Packages.tinypkg2","path":["tinypkg2"]}]' '[{"name":"hello","path":["hello"]}]')"; then
  expect "python3 + tinypkg" "tinypkg ok tinypkg2 ok" "$env" python3 -c 'import tinypkg, tinypkg2; print(tinypkg.hello(), tinypkg2.hello())'
  expect "python3 stdlib (ssl, sqlite3, ctypes)" "stdlib ok" "$env" python3 -c 'import ssl, sqlite3, ctypes, json, decimal; print("stdlib ok")'
  expect "top-level package" "Hello, world!" "$env" hello
  expect "base: bash + coreutils" "a b" "$env" bash -c 'echo a b | cat; true'
else bad "build py: $(tail -3 "$work/py.err")"; fi

if build py-plain "$(req '["python3"]' '["python3","withPackages"]' '[]' '[]')"; then
  expect "python3 plain" "hello from python" "$env" python3 -c 'print("hello from python")'
  expect "python3 plain has no tinypkg" "ModuleNotFoundError" "$env" bash -c 'python3 -c "import tinypkg" 2>&1 | tail -1 | cut -d: -f1'
else bad "build py-plain: $(tail -3 "$work/py-plain.err")"; fi

if build py-png "$(req '["python3"]' '["python3","withPackages"]' '[{"name":"python3Packages.tinypng","path":["tinypng"]}]' '[]')"; then
  expect "python3 + tinypng writes a PNG" "png ok" "$env" python3 -c 'import tinypng; b = tinypng.png(2, 2, lambda x, y: (255, x * 255, y * 255)); print("png ok" if b[:8] == bytes([137, 80, 78, 71, 13, 10, 26, 10]) and len(b) > 50 else b)'
else bad "build py-png: $(tail -3 "$work/py-png.err")"; fi

if build bash "$(req '["bash"]' 'null' '[]' '[]')"; then
  expect "bash" "hello from bash" "$env" bash -c 'echo hello from bash'
  expect "coreutils applets" "3 y" "$env" sh -c 'mkdir -p d && touch d/f && ls d >/dev/null && rm -r d && id -u >/dev/null && dd if=/dev/zero of=z bs=1 count=0 2>/dev/null && sleep 0 && printf "%s " $(yes | head -3 | wc -l) && env echo y'
else bad "build bash: $(tail -3 "$work/bash.err")"; fi

if build node "$(req '["nodejs"]' 'null' '[]' '[]')"; then
  expect "nodejs" "hello from node" "$env" node -e 'console.log("hello from node")'
else bad "build node: $(tail -3 "$work/node.err")"; fi

if build perl "$(req '["perl"]' '["perl","withPackages"]' '[{"name":"perlPackages.TinyPerl","path":["TinyPerl"]}]' '[]')"; then
  expect "perl + TinyPerl" "TinyPerl ok 3" "$env" perl -MTinyPerl -MList::Util=sum -e 'print TinyPerl::hello(), " ", sum(1,2), "\n"'
else bad "build perl: $(tail -3 "$work/perl.err")"; fi

if build perl-plain "$(req '["perl"]' '["perl","withPackages"]' '[]' '[]')"; then
  expect "perl plain has no TinyPerl" "no" "$env" perl -e 'print eval { require TinyPerl; 1 } ? "yes\n" : "no\n"'
else bad "build perl-plain: $(tail -3 "$work/perl-plain.err")"; fi

if build lua "$(req '["lua5_4"]' '["lua5_4","withPackages"]' '[{"name":"lua5_4Packages.tinylua","path":["tinylua"]}]' '[]')"; then
  expect "lua + tinylua" "tinylua ok" "$env" lua -e 'print(require("tinylua").hello())'
  expect "lua5.4 + tinylua" "tinylua ok" "$env" lua5.4 -e 'print(require("tinylua").hello())'
else bad "build lua: $(tail -3 "$work/lua.err")"; fi

if build lua-plain "$(req '["lua5_4"]' '["lua5_4","withPackages"]' '[]' '[]')"; then
  expect "lua plain has no tinylua" "false" "$env" lua -e 'print((pcall(require, "tinylua")))'
else bad "build lua-plain: $(tail -3 "$work/lua-plain.err")"; fi

if build ruby "$(req '["ruby"]' '["ruby","withPackages"]' '[{"name":"rubyPackages.tinyrb","path":["tinyrb"]}]' '[]')"; then
  expect "ruby + tinyrb" "tinyrb ok [1]" "$env" ruby -e 'require "tinyrb"; require "json"; puts "#{Tinyrb.hello} #{JSON.generate([1])}"'
else bad "build ruby: $(tail -3 "$work/ruby.err")"; fi

if build ruby-plain "$(req '["ruby"]' '["ruby","withPackages"]' '[]' '[]')"; then
  expect "ruby plain has no tinyrb" "LoadError" "$env" ruby -e 'begin; require "tinyrb"; puts "loaded"; rescue LoadError; puts "LoadError"; end'
else bad "build ruby-plain: $(tail -3 "$work/ruby-plain.err")"; fi

# unknown NAME REQUEST MARKER: the build must fail with exactly that marker.
unknown() {
  if build "$1" "$2"; then bad "$1: built although unknown"; return; fi
  local got
  got=$(grep -oE "nixexec-unknown-package:[^[:space:]'\"]+" "$work/$1.err" | head -1 || true)
  if [ "$got" = "nixexec-unknown-package:$3" ]; then ok "$1 -> $got"; else bad "$1: got '$got'"; cat "$work/$1.err"; fi
}
unknown unknown-set "$(req '["python3"]' '["python3","withPackages"]' '[{"name":"python3Packages.tinypkg","path":["tinypkg"]},{"name":"python3Packages.nope","path":["nope"]}]' '[]')" python3Packages.nope
unknown unknown-nested "$(req '["python3"]' '["python3","withPackages"]' '[]' '[{"name":"hello","path":["hello"]},{"name":"nope.sub","path":["nope","sub"]}]')" nope.sub
unknown through-drv "$(req '["python3"]' '["python3","withPackages"]' '[]' '[{"name":"hello.bin.x","path":["hello","bin","x"]}]')" hello.bin.x
unknown not-a-package "$(req '["python3"]' '["python3","withPackages"]' '[]' '[{"name":"python3Packages","path":["python3Packages"]}]')" python3Packages
unknown unknown-interp "$(req '["python2"]' '["python2","withPackages"]' '[]' '[]')" python2
unknown unknown-withpkgs "$(req '["bash"]' '["bash","withPackages"]' '[{"name":"x","path":["x"]}]' '[]')" bash.withPackages

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

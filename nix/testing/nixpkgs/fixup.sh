# Sourced by host-package builders (bash). Makes everything under $out
# self-contained: copies the host shared libraries that the ELF files need
# into $out/lib and points every ELF file at the store copy of glibc.
# Needs: $out, $glibc (store path holding lib/ld-linux-x86-64.so.2, libc...).
# Optional: $fixupLibDirs, store directories (space-separated) whose libraries
# are used as they are instead of being copied (a package's libraries that an
# extension links against must be loaded once, from the package).

# Magic check with bash builtins only: forking per file is what made
# perl/ruby/python (thousands of files) slow to fix up.
is_elf() {
  local magic=
  [ -f "$1" ] && [ ! -L "$1" ] || return 1
  # Object files are ELF too, but have no runpath or interpreter to set.
  case $1 in *.o) return 1 ;; esac
  LC_ALL=C read -r -N 4 magic < "$1" 2>/dev/null || true
  [ "$magic" = $'\x7fELF' ]
}

fixup_host_elfs() {
  mkdir -p "$out/lib"
  local elfs=() f dep base traced
  while IFS= read -r -d '' f; do
    is_elf "$f" && elfs+=("$f")
  done < <(find "$out" -type f -print0)
  [ "${#elfs[@]}" -gt 0 ] || return 0
  # The host's loader lists each file's whole tree of libraries, so a library
  # copied in needs no listing of its own; it still resolves against the host
  # here, since nothing is patched yet. One loader run per file (ldd runs it
  # twice, in a shell of its own) and one readelf below for all: coreutils,
  # a hundred programs, took 40 s to fix up a process or five per file at a time.
  traced=$(for f in "${elfs[@]}"; do
    echo "$f:"
    /lib64/ld-linux-x86-64.so.2 --list "$f" 2>/dev/null || true
  done)
  if grep -q 'not found' <<<"$traced"; then
    echo "fixup: unresolved libraries:" >&2
    grep -e ':$' -e 'not found' <<<"$traced" >&2
    exit 1
  fi
  for dep in $(awk '$2 == "=>" && $3 ~ /^\// && !seen[$3]++ {print $3}' <<<"$traced"); do
    # Found through a file's own $ORIGIN runpath: already in the package.
    case $dep in "$out"/*) continue ;; esac
    base=${dep##*/}
    provided "$base" && continue
    cp -L "$dep" "$out/lib/$base"
    chmod u+w "$out/lib/$base"
    elfs+=("$out/lib/$base")
  done
  chmod u+w "${elfs[@]}"
  local extra= rows row interp origin
  for dep in ${fixupLibDirs-}; do extra+=:$dep; done
  # Per file: whether it has an interpreter (only executables do; shared
  # objects just get the rpath) and the relative ($ORIGIN) entries of its
  # runpath, which stay: they point within the package (GHC's libraries).
  # readelf names each file only when given several; /dev/null makes it several.
  mapfile -t rows < <(readelf -lWd "${elfs[@]}" /dev/null 2>/dev/null | awk '
    function flush() { if (file != "" && file != "/dev/null") print interp "\t" origin "\t" file }
    /^File: / { flush(); file = substr($0, 7); interp = "-"; origin = "-" }
    /Requesting program interpreter:/ { interp = "yes" }
    /\((RUNPATH|RPATH)\)/ {
      path = $0; sub(/.*path: \[/, "", path); sub(/\]$/, "", path)
      n = split(path, entries, ":"); origin = ""
      for (k = 1; k <= n; k++) if (entries[k] ~ /^\$ORIGIN/) origin = origin (origin == "" ? "" : ":") entries[k]
      if (origin == "") origin = "-"
    }
    END { flush() }')
  if [ "${#rows[@]}" -ne "${#elfs[@]}" ]; then
    echo "fixup: readelf described ${#rows[@]} of ${#elfs[@]} ELF files" >&2
    exit 1
  fi
  for row in "${rows[@]}"; do
    IFS=$'\t' read -r interp origin f <<<"$row"
    [ "$interp" = yes ] || interp=
    [ "$origin" != - ] || origin=
    patchelf ${interp:+--set-interpreter "$glibc/lib/ld-linux-x86-64.so.2"} \
      --set-rpath "${origin:+$origin:}$out/lib$extra:$glibc/lib" "$f"
  done
}

provided() { # provided BASENAME: glibc, the package or $fixupLibDirs has it
  local d
  for d in "$glibc/lib" "$out/lib" ${fixupLibDirs-}; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}

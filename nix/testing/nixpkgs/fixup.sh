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
  local queue=() elfs=() f dep base i=0
  while IFS= read -r -d '' f; do
    is_elf "$f" && queue+=("$f")
  done < <(find "$out" -type f -print0)
  # Work queue: libraries we copy may need further libraries. ldd still
  # resolves against the host here, since nothing is patched yet.
  while [ "$i" -lt "${#queue[@]}" ]; do
    f=${queue[$i]}; i=$((i + 1))
    elfs+=("$f")
    if ldd "$f" 2>/dev/null | grep -q 'not found'; then
      echo "fixup: unresolved library in $f:" >&2
      ldd "$f" | grep 'not found' >&2
      exit 1
    fi
    for dep in $(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
      # Found through the file's own $ORIGIN runpath: already in the package.
      case $dep in "$out"/*) continue ;; esac
      base=${dep##*/}
      provided "$base" && continue
      cp -L "$dep" "$out/lib/$base"
      chmod u+w "$out/lib/$base"
      queue+=("$out/lib/$base")
    done
  done
  local extra= origin
  for dep in ${fixupLibDirs-}; do extra+=:$dep; done
  for f in "${elfs[@]}"; do
    chmod u+w "$f"
    # Only executables have an interpreter; shared objects just get the rpath.
    if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
      patchelf --set-interpreter "$glibc/lib/ld-linux-x86-64.so.2" "$f"
    fi
    # Relative ($ORIGIN) entries stay: they point within the package (GHC's libraries).
    origin=$(patchelf --print-rpath "$f" | tr ':' '\n' | grep '^\$ORIGIN' | paste -sd: || true)
    patchelf --set-rpath "${origin:+$origin:}$out/lib$extra:$glibc/lib" "$f"
  done
}

provided() { # provided BASENAME: glibc, the package or $fixupLibDirs has it
  local d
  for d in "$glibc/lib" "$out/lib" ${fixupLibDirs-}; do
    [ -e "$d/$1" ] && return 0
  done
  return 1
}

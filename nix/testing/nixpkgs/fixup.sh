# Sourced by host-package builders (bash). Makes everything under $out
# self-contained: copies the host shared libraries that the ELF files need
# into $out/lib and points every ELF file at the store copy of glibc.
# Needs: $out, $glibc (store path holding lib/ld-linux-x86-64.so.2, libc...).

# Magic check with bash builtins only: forking per file is what made
# perl/ruby/python (thousands of files) slow to fix up.
is_elf() {
  local magic=
  [ -f "$1" ] && [ ! -L "$1" ] || return 1
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
      base=${dep##*/}
      [ -e "$glibc/lib/$base" ] || [ -e "$out/lib/$base" ] && continue
      cp -L "$dep" "$out/lib/$base"
      chmod u+w "$out/lib/$base"
      queue+=("$out/lib/$base")
    done
  done
  for f in "${elfs[@]}"; do
    chmod u+w "$f"
    # Only executables have an interpreter; shared objects just get the rpath.
    if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
      patchelf --set-interpreter "$glibc/lib/ld-linux-x86-64.so.2" "$f"
    fi
    patchelf --set-rpath "$out/lib:$glibc/lib" "$f"
  done
}

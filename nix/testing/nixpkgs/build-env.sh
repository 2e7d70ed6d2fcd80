# Builder for buildEnv (bash). Like nixpkgs' buildEnv: symlink whole
# directories while only one path provides them, and split a directory
# into a real one as soon as a second path contributes to it.
# Unlike nixpkgs, a file collision is not fatal: the first path wins
# (the env puts the interpreter first, then base, then extra packages).
set -eu

link() { # link SRC DST
  local src=$1 dst=$2 e
  if [ ! -e "$dst" ] && [ ! -L "$dst" ]; then
    ln -s "$src" "$dst"
  elif [ -d "$src" ] && [ -d "$dst" ]; then
    if [ -L "$dst" ]; then
      # Second contributor: replace the directory symlink by a real directory.
      local prev
      prev=$(readlink "$dst")
      rm "$dst"
      mkdir "$dst"
      for e in "$prev"/* "$prev"/.[!.]*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        link "$e" "$dst/$(basename "$e")"
      done
    fi
    for e in "$src"/* "$src"/.[!.]*; do
      [ -e "$e" ] || [ -L "$e" ] || continue
      link "$e" "$dst/$(basename "$e")"
    done
  else
    echo "buildEnv: collision on ${dst#$out/}, keeping the first ($(readlink -f "$dst"))" >&2
  fi
}

mkdir -p "$out"
for p in $paths; do
  for e in "$p"/* ; do
    [ -e "$e" ] || continue
    link "$e" "$out/$(basename "$e")"
  done
done

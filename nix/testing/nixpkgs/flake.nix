# Offline stand-in for nixpkgs, used only by tests.
#
# It exposes a tiny subset of nixpkgs' attribute names (buildEnv, python3,
# python3.withPackages, python3Packages.*, bash, coreutils, nodejs, perl,
# lua5_4, ruby, ...) built purely from binaries already installed on the
# Debian host, so environment builds work with no network and no binary cache.
# Builds are impure (they read /usr) and therefore need `--option sandbox false`.
{
  description = "nix-exec offline test fixture shaped like nixpkgs";

  outputs = { self }: {
    legacyPackages.x86_64-linux = import ./pkgs.nix { system = "x86_64-linux"; };
  };
}

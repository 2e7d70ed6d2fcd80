# Static flake for one job environment. The service copies this file as
# flake.nix next to env.nix, writes the request as JSON to a file *outside*
# this directory, names that file in NIXEXEC_REQUEST_FILE and builds with
#   --impure --override-input nixpkgs <locked nixpkgs url>
# The flake's directory is copied into the world-readable store; the request
# is only read (builtins.readFile of a path outside the store copies nothing),
# so no job's request lands where another job could read it. --impure is what
# allows that read; the nixpkgs input stays locked by the override, so the
# build is as pinned as before. The placeholder below is never fetched (it
# points nowhere on purpose: a build without the override fails fast instead
# of using some other nixpkgs).
{
  inputs.nixpkgs.url = "path:/nonexistent/nixexec-nixpkgs-must-be-overridden";

  outputs = { self, nixpkgs }:
    let
      file = builtins.getEnv "NIXEXEC_REQUEST_FILE";
      request =
        if file == "" then throw "nixexec: NIXEXEC_REQUEST_FILE is not set (build with --impure)"
        else builtins.fromJSON (builtins.readFile file);
    in {
      packages.${request.system}.default = import ./env.nix {
        pkgs = nixpkgs.legacyPackages.${request.system};
        inherit request;
      };
    };
}

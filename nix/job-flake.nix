# Static flake for one job environment. The service copies this file as
# flake.nix next to env.nix and its own request.json, then builds it with
#   --override-input nixpkgs <locked nixpkgs url>
# so the placeholder below is never fetched (it points nowhere on purpose:
# a build without the override fails fast instead of using some other nixpkgs).
{
  inputs.nixpkgs.url = "path:/nonexistent/nixexec-nixpkgs-must-be-overridden";

  outputs = { self, nixpkgs }:
    let
      request = builtins.fromJSON (builtins.readFile ./request.json);
    in {
      packages.${request.system}.default = import ./env.nix {
        pkgs = nixpkgs.legacyPackages.${request.system};
        inherit request;
      };
    };
}

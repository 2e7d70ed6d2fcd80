{
  description = "nix-exec: runs untrusted code for AI agents (REST and MCP), Nix environments, bubblewrap sandbox";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      # x86_64 only: the embedded PostgreSQL binaries in the pom and the VM test are x86_64.
      systems = [ "x86_64-linux" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      packages = forAllSystems (pkgs: rec {
        # every Maven dependency is pinned file by file in nixos/maven-lock.json (docs/operations.md,
        # "Building the package")
        nix-exec = pkgs.callPackage ./nixos/package.nix { };
        default = nix-exec;
      });

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.stdenv.hostPlatform.system}.default}/bin/nix-exec";
        };
      });

      nixosModules.default = { pkgs, lib, ... }: {
        imports = [ ./nixos/module.nix ];
        services.nix-exec.package = lib.mkDefault self.packages.${pkgs.stdenv.hostPlatform.system}.default;
      };

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.jdk21 pkgs.maven pkgs.nix pkgs.bubblewrap pkgs.postgresql pkgs.util-linux ];
          shellHook = ''
            export JAVA_HOME=${pkgs.jdk21}
          '';
        };
      });

      checks = forAllSystems (pkgs: {
        fleet = import ./nixos/tests/fleet.nix {
          inherit pkgs nixpkgs;
          nixExecModule = ./nixos/module.nix;
          nixExecPackage = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
        };
      });
    };
}

# The NixOS options services.nix-exec sets, declared with the types NixOS gives them and nothing
# more: no freeform types, so an option the module misspells, or a value of the wrong type, fails
# the evaluation as it would on NixOS. Assertions and warnings are data here, as in NixOS (the
# system build refuses a failing assertion); run.nix reports which fail.
{ lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  opt = type: default: mkOption { inherit type default; };
  # nixos/lib/systemd-unit-options.nix: a unit setting is a primitive or a list of them
  unitPrimitive = types.oneOf [ types.bool types.int types.str types.path ];
  unitOption = types.oneOf [ unitPrimitive (types.listOf unitPrimitive) ];
in
{
  options = {
    assertions = opt (types.listOf (types.submodule {
      options.assertion = mkOption { type = types.bool; };
      options.message = mkOption { type = types.str; };
    })) [ ];
    warnings = opt (types.listOf types.str) [ ];

    environment.etc = opt (types.attrsOf (types.submodule ({ name, config, ... }: {
      options = {
        enable = opt types.bool true;
        text = opt (types.nullOr types.lines) null;
        source = mkOption { type = types.path; };
        target = opt types.str name;
        mode = opt types.str "symlink";
      };
      config.source = lib.mkIf (config.text != null)
        (lib.mkDefault (pkgs.writeText "etc-${baseNameOf name}" config.text));
    }))) { };

    users.users = opt (types.attrsOf (types.submodule {
      options = {
        isSystemUser = opt types.bool false;
        isNormalUser = opt types.bool false;
        group = opt types.str "";
        home = opt types.path "/var/empty";
        description = opt types.str "";
      };
    })) { };
    users.groups = opt (types.attrsOf (types.submodule {
      options.gid = opt (types.nullOr types.int) null;
      options.members = opt (types.listOf types.str) [ ];
    })) { };

    services.postgresql = {
      enable = opt types.bool false;
      ensureDatabases = opt (types.listOf types.str) [ ];
      ensureUsers = opt (types.listOf (types.submodule {
        options.name = mkOption { type = types.str; };
        options.ensureDBOwnership = opt types.bool false;
      })) [ ];
      settings = opt (types.submodule { options.port = opt types.port 5432; }) { };
    };

    nix.package = opt types.package pkgs.nix;
    nix.settings = opt (types.submodule {
      options = {
        experimental-features = opt (types.listOf types.str) [ ];
        trusted-substituters = opt (types.listOf types.str) [ ];
        extra-trusted-public-keys = opt (types.listOf types.str) [ ];
        allowed-users = opt (types.listOf types.str) [ "*" ];
      };
    }) { };

    security.allowUserNamespaces = opt types.bool true;

    systemd.tmpfiles.rules = opt (types.listOf types.str) [ ];

    networking.firewall.allowedTCPPorts = opt (types.listOf types.port) [ ];

    systemd.services = opt (types.attrsOf (types.submodule {
      options = {
        enable = opt types.bool true;
        description = opt types.str "";
        wantedBy = opt (types.listOf types.str) [ ];
        wants = opt (types.listOf types.str) [ ];
        after = opt (types.listOf types.str) [ ];
        requires = opt (types.listOf types.str) [ ];
        restartTriggers = opt (types.listOf types.unspecified) [ ];
        path = opt (types.listOf (types.either types.package types.str)) [ ];
        environment = opt (types.attrsOf (types.nullOr (types.oneOf [ types.str types.path types.package ]))) { };
        serviceConfig = opt (types.attrsOf unitOption) { };
      };
    })) { };
  };
}

# Evaluates nixos/module.nix with lib.evalModules over stub-nixos.nix for every case of cases.nix.
# The result (JSON) is checked by run.sh.
{ libPath, binDir }:
let
  lib = import libPath;
  pkgsFor = name: import ./stub-pkgs.nix { inherit lib; binDir = "${binDir}/${name}"; };
  cases = import ./cases.nix { pkgs = pkgsFor "none"; };
  renderUnit = import ./unit.nix { inherit lib; };
  eval = pkgs: module: (lib.evalModules {
    modules = [ ./stub-nixos.nix ../../module.nix module ];
    specialArgs = { inherit pkgs; };
  }).config;
  failed = config: map (a: a.message) (builtins.filter (a: !a.assertion) config.assertions);
in
{
  ok = builtins.mapAttrs (name: case:
    let
      pkgs = pkgsFor name;
      config = eval pkgs case.module;
      # the same host with scripts kept as their text, to check the start script's syntax
      scripts = eval (pkgs // { writeShellScript = _: text: text; }) case.module;
    in {
      inherit (case) yaml;
      failed = failed config;
      inherit (config) warnings;
      unmet = builtins.attrNames (lib.filterAttrs (_: ok: !ok) (case.expect config));
      configYaml = config.environment.etc."nix-exec/config.yaml".text;
      unit = renderUnit config.systemd.services.nix-exec;
      execStart = config.systemd.services.nix-exec.serviceConfig.ExecStart;
      startScript = scripts.systemd.services.nix-exec.serviceConfig.ExecStart;
    }) cases.ok;
  fail = builtins.mapAttrs (name: case: {
    expected = case.failures;
    failed = failed (eval (pkgsFor name) case.module);
  }) cases.fail;
}

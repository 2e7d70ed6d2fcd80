# The few attributes of nixpkgs the module uses, without nixpkgs: nothing is built. Files the
# module would write to the store become paths under binDir (run.sh creates the start script there
# so that systemd-analyze can check ExecStart).
{ lib, binDir }:
let
  fakeDrv = name: {
    type = "derivation";
    inherit name;
    pname = lib.getName name;
    outPath = "/nix/store/00000000000000000000000000000000-${name}";
    meta.mainProgram = lib.getName name;
  };
in
{
  # nixpkgs' pkgs.formats.yaml type: any JSON-like value
  formats.yaml = { }: {
    type = with lib.types; let
      valueType = nullOr (oneOf [ bool int float str path (attrsOf valueType) (listOf valueType) ]) // {
        description = "YAML value";
      };
    in valueType;
  };
  writeShellScript = name: text: "${binDir}/${name}";
  writeText = name: text: "/nix/store/00000000000000000000000000000000-${name}";
  nix = fakeDrv "nix-2.24.0";
  nix-exec = fakeDrv "nix-exec-0.1.0";
  slirp4netns = fakeDrv "slirp4netns-1.3.1";
  iproute2 = fakeDrv "iproute2-6.9.0";
  util-linux = fakeDrv "util-linux-2.40.2";
}

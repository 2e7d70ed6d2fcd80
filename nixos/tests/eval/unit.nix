# The text of a systemd service unit from a systemd.services.<name> value, rendered the way NixOS
# renders it (nixos/lib/systemd-lib.nix: one line per list element, booleans as true/false,
# Environment= JSON-quoted, PATH from `path`). WantedBy goes to [Install] for systemd-analyze.
{ lib }:
service:
let
  toOption = x: if x == true then "true" else if x == false then "false" else toString x;
  section = attrs: lib.concatStrings (lib.concatLists (lib.mapAttrsToList
    (name: value: map (x: "${name}=${toOption x}\n") (lib.toList value)) attrs));
  environment = service.environment // lib.optionalAttrs (service.path != [ ]) {
    PATH = lib.concatMapStringsSep ":" (p: "${p}/bin:${p}/sbin") service.path;
  };
  nonEmpty = lib.filterAttrs (_: v: v != [ ] && v != "");
in
''
  [Unit]
  ${section (nonEmpty {
    Description = service.description;
    Wants = service.wants;
    After = service.after;
    Requires = service.requires;
    X-Restart-Triggers = toString service.restartTriggers;
  })}
  [Service]
  ${lib.concatStrings (lib.mapAttrsToList (name: value:
    lib.optionalString (value != null) "Environment=${builtins.toJSON "${name}=${toString value}"}\n")
    environment)}${section service.serviceConfig}
  [Install]
  ${section (nonEmpty { WantedBy = service.wantedBy; })}''

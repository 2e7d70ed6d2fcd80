# Renders services.nix-exec.settings, plus the values the module derives from its own options,
# to the text of /etc/nix-exec/config.yaml. JSON is YAML, so builtins.toJSON is the renderer:
# this file needs no nixpkgs, which lets .ci/run's test (ModuleRenderingTest) evaluate it with a
# plain `nix-instantiate` and feed the result to the service's real config loader.
# Unset (null) values are dropped, so a typed option left at null keeps the service's default.
{ settings, role, concurrency, stateDir, databaseUrl ? null, environments ? { } }:
let
  clean = value:
    if builtins.isAttrs value then
      builtins.listToAttrs (map (name: { inherit name; value = clean value.${name}; })
        (builtins.filter (name: value.${name} != null) (builtins.attrNames value)))
    else value;

  # The module's own options win over the same keys in `settings`.
  merge = left: right:
    left // builtins.mapAttrs (name: value:
      if builtins.isAttrs value && builtins.isAttrs (left.${name} or null)
      then merge left.${name} value else value) right;

  derived = {
    node = { inherit role concurrency; };
    state_dir = stateDir;
  } // (if databaseUrl == null then { } else { db_url = databaseUrl; })
    // (if environments == { } then { } else { inherit environments; });
in
builtins.toJSON (clean (merge settings derived))

# Lists the pinned nixpkgs' packages for the package search index
# (dev.nixexec.nix.PackageIndexBuilder), as one JSON string:
#   [{ attribute, set, version, description }]
# for every top-level attribute that is a derivation, and every member of
# the package sets the request names (python3Packages, ...). The request
# (read from the file NIXEXEC_INDEX_REQUEST names, under --impure) carries
# only the locked nixpkgs URL, the system and the set names, all from the
# service's own configuration: nothing a user sends reaches this file.
#
# An attribute that fails to evaluate (nixpkgs' removed-package aliases
# throw, some are broken or unfree) is left out; each is evaluated alone
# inside tryEval, so one bad attribute never costs the index.
let
  request = builtins.fromJSON (builtins.readFile (builtins.getEnv "NIXEXEC_INDEX_REQUEST"));
  pkgs = (builtins.getFlake request.nixpkgs).legacyPackages.${request.system};

  isDerivation = v: builtins.isAttrs v && (v.type or null) == "derivation";
  text = v: if builtins.isString v then v else "";

  entry = set: name: v: {
    attribute = if set == "" then name else "${set}.${name}";
    inherit set;
    version = text (v.version or (builtins.parseDrvName (v.name or "")).version);
    description = text (v.meta.description or "");
  };

  one = set: attrs: name:
    let
      tried = builtins.tryEval (
        let v = attrs.${name}; in
        if isDerivation v then (let e = entry set name v; in builtins.deepSeq e [ e ]) else [ ]);
    in if tried.success then tried.value else [ ];

  members = set: attrs: builtins.concatMap (one set attrs) (builtins.attrNames attrs);

  packageSet = name:
    let tried = builtins.tryEval (pkgs.${name} or { });
    in if tried.success && builtins.isAttrs tried.value && !(isDerivation tried.value) then tried.value else { };
in
builtins.toJSON (members "" pkgs ++ builtins.concatMap (s: members s (packageSet s)) request.package_sets)

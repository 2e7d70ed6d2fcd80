# Builds one job environment from request.json (see job-flake.nix).
#
# The request only ever reaches Nix as data: attribute paths are looked up
# segment by segment with builtins, never spliced into Nix source.
# Any path that does not lead to a package fails evaluation with
#   nixexec-unknown-package:<name>
# which the service greps from stderr. Only builtins are used (no lib), so
# this works against any nixpkgs-shaped input, including the test fixture.
{ pkgs, request }:

let
  dotted = path: builtins.concatStringsSep "." path;

  unknown = name: throw "nixexec-unknown-package:${name}";

  # Walk `path` from `root`. A missing segment, a non-attrset in the middle,
  # or an attribute whose own evaluation throws (nixpkgs' removed-package
  # aliases do) all count as unknown. Only these cases are caught: errors
  # while building a found package (broken, unfree, ...) still surface as is.
  lookup = root: path: name:
    builtins.foldl' (cur: seg:
      if builtins.isAttrs cur && cur ? ${seg}
         && (builtins.tryEval cur.${seg}).success
      then cur.${seg}
      else unknown name) root path;

  isDerivation = v: builtins.isAttrs v && (v.type or null) == "derivation";

  # A package must be a derivation: a package *set* (e.g. ["python3Packages"])
  # would otherwise give a confusing error deep inside buildEnv.
  package = root: path: name:
    let v = lookup root path name;
    in if isDerivation v then v else unknown name;

  function = root: path: name:
    let v = lookup root path name;
    in if builtins.isFunction v || (builtins.isAttrs v && v ? __functor)
       then v else unknown name;

  setPackages = request.set_packages or [ ];
  withPackagesPath = request.with_packages or null;

  # Top-level lookups, forced in request order before anything is built, so
  # the first unknown name is the one reported, whatever Nix evaluates first.
  plainInterpreter = package pkgs request.interpreter (dotted request.interpreter);
  base = map (p: package pkgs p (dotted p)) (request.base or [ ]);
  packages = map (p: package pkgs p.path p.name) (request.packages or [ ]);
  withPackages =
    if setPackages == [ ] then null
    else if withPackagesPath == null
    then throw "nixexec-no-package-set:${dotted request.interpreter}"
    else function pkgs withPackagesPath (dotted withPackagesPath);

  # Package-set members are resolved inside the `ps` the language's
  # withPackages passes in (python3Packages, haskellPackages, ...).
  # Forcing the whole list as soon as any of it is used keeps the report
  # deterministic (first unknown name in request order).
  # A member that nixpkgs sets to null comes with the interpreter itself
  # (GHC's boot packages: haskellPackages.text, containers, ...): known,
  # nothing to add.
  setMember = ps: p:
    if lookup ps p.path p.name == null then null else package ps p.path p.name;
  selectFrom = members: ps:
    let selected = map (setMember ps) members;
    in builtins.seq (strictAll selected) (builtins.filter (v: v != null) selected);

  interpreter =
    if withPackages == null then plainInterpreter
    else withPackages (selectFrom setPackages);

  # Members of other languages' sets: each set's interpreter with them, by its own withPackages
  # (python3.withPackages, haskellPackages.ghcWithPackages, ...), so the package comes with the
  # interpreter that loads it.
  languageSets = map (s: {
    withPackages = function pkgs s.with_packages (dotted s.with_packages);
    inherit (s) members;
  }) (request.language_sets or [ ]);
  otherInterpreters = map (s: s.withPackages (selectFrom s.members)) languageSets;

  strictAll = builtins.foldl' (acc: v: builtins.seq v acc) true;

  checked = strictAll ([ plainInterpreter withPackages ] ++ map (s: s.withPackages) languageSets
    ++ base ++ packages);

  env = pkgs.buildEnv {
    name = "nixexec-env";
    paths = [ interpreter ] ++ otherInterpreters ++ base ++ packages;
  };
in
builtins.seq checked env

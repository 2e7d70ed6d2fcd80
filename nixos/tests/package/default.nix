# nixos/package.nix without nixpkgs: the pinned nixpkgs lib (the one nixos/tests/eval uses) and,
# for the rest, stand-ins. fetchurl is Nix's own builtin fetcher (<nix/fetchurl.nix>), so the
# Maven repository it yields (passthru.mavenRepository) is a real derivation, fetched from the
# lock's urls and checked against its sha256s; linkFarm links the files with the host's /bin/sh
# (this machine's Nix builds without a sandbox). Nothing of the package itself is built: no
# nixpkgs, no stdenv; lib.fileset (src) needs a newer Nix than 2.8. See docs/operations.md,
# "Building the package".
# (libPath absolute; .ci/run evaluates `checks`, the fetch is run by hand):
#   nix-instantiate --eval --strict -A checks nixos/tests/package --argstr libPath $PWD/../shared/nixpkgs-lib/lib
#   nix-build --option substituters '' -A mavenRepository nixos/tests/package --argstr libPath ...
{ libPath }:
let
  lib = import libPath;
  stub = name: { type = "derivation"; inherit name; outPath = "/nix/store/00000000000000000000000000000000-${name}"; };
  package = import ../../package.nix {
    inherit lib;
    stdenvNoCC.mkDerivation = attrs: attrs;
    fetchurl = { url, sha256 }: import <nix/fetchurl.nix> { inherit url sha256; };
    linkFarm = name: entries: derivation {
      inherit name;
      system = builtins.currentSystem;
      builder = "/bin/sh";
      links = lib.concatMapStrings (e: "${e.name} ${e.path}\n") entries;
      passAsFile = [ "links" ]; # too long for one environment variable
      args = [ "-ec" ''
        while read -r name target; do
          /bin/mkdir -p "$out/$(/usr/bin/dirname "$name")"
          /bin/ln -s "$target" "$out/$name"
        done <"$linksPath"
      '' ];
    };
    maven.override = _: stub "maven";
    jdk21_headless = stub "jdk";
    makeWrapper = stub "make-wrapper";
    bubblewrap = stub "bubblewrap";
    nix = stub "nix";
    util-linux = stub "util-linux";
    coreutils = stub "coreutils";
  };
  lock = lib.importJSON ../../maven-lock.json;
  central = "https://repo.maven.apache.org/maven2/";
in
{
  inherit (package.passthru) mavenRepository;
  # what evaluation can check, failing on the first that does not hold: every entry is the Maven
  # Central file its path names, with a well-formed sha256, once; the build uses the repository;
  # the command ./mvnw package makes (target/nix-exec, docs/cli.md) is installed as bin/nix-exec,
  # and target/nixo as bin/nixo
  checks =
    let
      paths = map (f: f.path) lock.files;
      notCentral = lib.filter (f: f.url != central + f.path || builtins.match "[0-9a-f]{64}" f.sha256 == null) lock.files;
      inBuild = with builtins; lib.hasInfix (unsafeDiscardStringContext package.passthru.mavenRepository.outPath)
        (unsafeDiscardStringContext package.buildPhase);
      install = builtins.unsafeDiscardStringContext package.installPhase;
      installsCommand = lib.hasInfix "install -m 755 target/nix-exec $out/libexec/nix-exec" install
        && lib.hasInfix "for command in nix-exec nixo; do" install
        && lib.hasInfix "makeWrapper $out/libexec/$command $out/bin/$command" install
        && package.meta.mainProgram == "nix-exec";
      installsNixo = lib.hasInfix "install -m 755 target/nixo $out/libexec/nixo" install;
    in
    assert lib.assertMsg (notCentral == [ ]) "maven-lock.json: bad url or sha256: ${(builtins.head notCentral).path}";
    assert lib.assertMsg (lib.length (lib.unique paths) == lib.length paths) "maven-lock.json: a path twice";
    assert lib.assertMsg inBuild "package.nix: the build does not use the lock's repository";
    assert lib.assertMsg installsCommand "package.nix: target/nix-exec is not installed as bin/nix-exec";
    assert lib.assertMsg installsNixo "package.nix: target/nixo is not installed as bin/nixo";
    "nixos/package.nix evaluates over ${toString (lib.length paths)} locked Maven files";
}

# The service built from source, offline, by nixpkgs' Maven. Its Maven repository is made of the
# files nixos/maven-lock.json pins one by one (a fetchurl each, linked into one tree), so there is
# no hash to compute here: nixos/update-maven-lock.sh rewrites the lock after pom.xml changes, and
# .ci/run proves it complete (every Maven command of CI runs offline against only these files).
# pom.xml pins the plugin versions Maven would otherwise pick by its own version, so nixpkgs' Maven
# resolves the lock's set, not the wrapper's. See docs/operations.md, "Building the package".
{ lib, stdenvNoCC, fetchurl, linkFarm, maven, jdk21_headless, makeWrapper, bubblewrap, nix, util-linux, coreutils }:

let
  lock = lib.importJSON ./maven-lock.json;
  mavenRepository = linkFarm "nix-exec-maven-repository" (map
    (file: {
      name = file.path;
      path = fetchurl { inherit (file) url sha256; };
    })
    lock.files);
in
stdenvNoCC.mkDerivation {
  pname = "nix-exec";
  version = "0.1.0";

  src = lib.fileset.toSource {
    root = ../.;
    fileset = lib.fileset.unions [
      ../pom.xml
      ../src/main
      ../migrations
      ../nix/env.nix
      ../nix/job-flake.nix
    ];
  };

  nativeBuildInputs = [ (maven.override { jdk_headless = jdk21_headless; }) makeWrapper ];

  # The tests need a real nix, bubblewrap and PostgreSQL; they run in .ci/run, not in the Nix sandbox.
  buildPhase = ''
    runHook preBuild
    export HOME=$TMPDIR
    # Maven may write its bookkeeping into the local repository: a writable tree of links to the store
    cp -r --no-preserve=mode ${mavenRepository} $TMPDIR/maven-repository
    mvn -o -B -ntp package -DskipTests -Dquarkus.analytics.disabled=true \
      -Dmaven.repo.local=$TMPDIR/maven-repository
    runHook postBuild
  '';

  # Quarkus' fast-jar layout: target/quarkus-app/quarkus-run.jar with lib/, app/ and quarkus/ beside it.
  installPhase = ''
    runHook preInstall
    mkdir -p $out/share/nix-exec $out/libexec $out/bin
    cp -r target/quarkus-app/. $out/share/nix-exec/
    # the command (src/main/launcher/nix-exec): the MCP stdio server, serve, or a client command, on this package's JDK
    # and under nixo's name (src/main/launcher/nixo), for nixo's users
    install -m 755 target/nix-exec $out/libexec/nix-exec
    install -m 755 target/nixo $out/libexec/nixo
    for command in nix-exec nixo; do
      makeWrapper $out/libexec/$command $out/bin/$command \
        --set NIXEXEC_APP_DIR $out/share/nix-exec \
        --set NIXEXEC_JAVA ${jdk21_headless}/bin/java \
        --suffix PATH : ${lib.makeBinPath [ bubblewrap nix util-linux coreutils ]}
    done
    runHook postInstall
  '';

  passthru = { inherit mavenRepository; };

  meta = {
    description = "Runs untrusted code for AI agents: REST and MCP, Nix environments, bubblewrap sandbox";
    mainProgram = "nix-exec";
    platforms = lib.platforms.linux;
  };
}

# The service built from source with nixpkgs' Maven support. `mvnHash` pins every Maven
# dependency; nixos/update-mvn-hash.sh computes it (network needed) and writes it into flake.nix,
# also after a change to pom.xml — see docs/operations.md, "Building the package".
{ lib, maven, jdk21_headless, makeWrapper, bubblewrap, nix, util-linux, coreutils, mvnHash ? lib.fakeHash }:

maven.buildMavenPackage {
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

  inherit mvnHash;
  mvnJdk = jdk21_headless;
  # The tests need a real nix, bubblewrap and PostgreSQL; they run in .ci/run, not in the Nix sandbox.
  doCheck = false;
  mvnParameters = "-DskipTests";

  nativeBuildInputs = [ makeWrapper ];

  # Quarkus' fast-jar layout: target/quarkus-app/quarkus-run.jar with lib/, app/ and quarkus/ beside it.
  installPhase = ''
    runHook preInstall
    mkdir -p $out/share/nix-exec $out/bin
    cp -r target/quarkus-app/. $out/share/nix-exec/
    makeWrapper ${jdk21_headless}/bin/java $out/bin/nix-exec \
      --add-flags "-jar $out/share/nix-exec/quarkus-run.jar" \
      --suffix PATH : ${lib.makeBinPath [ bubblewrap nix util-linux coreutils ]}
    runHook postInstall
  '';

  meta = {
    description = "Runs untrusted code for AI agents: REST and MCP, Nix environments, bubblewrap sandbox";
    mainProgram = "nix-exec";
    platforms = lib.platforms.linux;
  };
}

#!/bin/sh
# Runs TREE's packaged service (./mvnw package first) on 127.0.0.1:PORT with its own state
# directory (and embedded PostgreSQL) under STATE, on the offline test fixture:
#   src/test/latency-ab/serve.sh TREE STATE PORT
# Two of these (two builds) side by side are what AbClient.java compares.
TREE=$1; STATE=$2; PORT=$3
exec java -Xmx512m \
  -Dnixexec.state-dir="$STATE" -Dquarkus.http.port="$PORT" -Dquarkus.http.host=127.0.0.1 \
  -Dnixexec.auth.bootstrap-admin-key=nx_test_bootstrap_admin_secret \
  -Dnixexec.executor.nixpkgs-url=path:"$TREE"/nix/testing/nixpkgs \
  -Dnixexec.executor.substituters=none -Dnixexec.executor.nix-options=sandbox=false \
  -Dnixexec.package-index.at-start=false \
  -jar "$TREE"/target/quarkus-app/quarkus-run.jar

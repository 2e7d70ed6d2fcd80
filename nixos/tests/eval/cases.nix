# Hosts to evaluate services.nix-exec on. `ok` cases must pass every assertion and raise no
# warning; their config.yaml is compared with the file `yaml`, every value of `expect` must be true,
# and run.sh checks their unit with systemd-analyze and their start script with bash -n.
# `fail` cases must fail exactly the assertions whose messages are listed.
{ pkgs }:
let
  sample = import ../sample-settings.nix;
  dbUrl = "jdbc:postgresql://db.internal:5432/nix-exec";
  node = extra: { services.nix-exec = { enable = true; package = pkgs.nix-exec; } // extra; };
  msg = {
    oneDatabase = "services.nix-exec: set exactly one of database.createLocally or database.url (the embedded PostgreSQL of a laptop install does not run on NixOS).";
    dbName = "services.nix-exec: with database.createLocally, database.name must equal user (ensureDBOwnership).";
    hiddenDirs = "services.nix-exec: settings.executor.cache_dir and temp_dir must not be under /tmp, /var/tmp, /home, /root or /run/user (hidden from the service by PrivateTmp/ProtectHome).";
    userNs = "services.nix-exec: the sandbox (bubblewrap) needs security.allowUserNamespaces.";
    fleetNeedsCache = "services.nix-exec: fleet.signingKeyFile and fleet.trustedPublicKeys need fleet.sharedCache (the directory they publish to and copy from).";
    keyInStore = "services.nix-exec: fleet.signingKeyFile must not be in the Nix store (anyone on the host can read the store).";
    allowedUsers = user: "services.nix-exec: add ${user} to nix.settings.allowed-users (it builds environments through the Nix daemon).";
  };
in
{
  ok = {
    # one host: API and worker with PostgreSQL beside it, behind nginx
    single-host = {
      module = node {
        database.createLocally = true;
        openFirewall = true;
        trustedProxies = [ "127.0.0.1" ];
        environmentFile = "/run/secrets/nix-exec.env";
      };
      yaml = "expected/single-host.config.yaml";
      expect = config: with config; {
        "PostgreSQL runs" = services.postgresql.enable;
        "the database is created" = services.postgresql.ensureDatabases == [ "nix-exec" ];
        "its owner is the service user" = services.postgresql.ensureUsers == [{ name = "nix-exec"; ensureDBOwnership = true; }];
        "the unit requires PostgreSQL" = systemd.services.nix-exec.requires == [ "postgresql.service" ];
        "the HTTP port is open" = networking.firewall.allowedTCPPorts == [ 8080 ];
        "the service user and group exist" = users.users.nix-exec.isSystemUser && users.users.nix-exec.group == "nix-exec" && users.groups ? nix-exec;
        "no extra directories" = systemd.tmpfiles.rules == [ ];
        "the daemon builds flakes" = nix.settings.experimental-features == [ "nix-command" "flakes" ];
        "networked jobs' tools are on the service's PATH" = systemd.services.nix-exec.path
          == [ nix.package pkgs.slirp4netns pkgs.iproute2 pkgs.util-linux ];
      };
    };
    # nix-exec's own README example, under the option path its module declared (programs.nix-exec),
    # with its log level spelled as nix-exec does; a database is the one thing it adds
    seed-programs = {
      module = {
        programs.nix-exec = {
          enable = true;
          package = pkgs.nix-exec;
          database.createLocally = true;
          settings = {
            sandbox.timeout = "60s";
            executor.nixpkgs_url = "github:NixOS/nixpkgs/nixos-25.05";
            logging.level = "warn";
          };
        };
      };
      yaml = "expected/seed-programs.config.yaml";
      expect = config: with config; {
        "programs.nix-exec is services.nix-exec" = services.nix-exec.enable
          && services.nix-exec.settings.sandbox.timeout == "60s";
        "the service runs" = systemd.services.nix-exec.wantedBy == [ "multi-user.target" ];
      };
    };
    # the sample of ModuleRenderingTest: a worker of a fleet, its database elsewhere
    worker = {
      module = node {
        inherit (sample) role concurrency settings;
        database = { url = sample.databaseUrl; user = "nix-exec"; passwordFile = "/run/secrets/db-password"; };
      };
      yaml = "../../../src/test/resources/nixos/config.yaml";
      expect = config: with config; {
        "no local PostgreSQL" = !services.postgresql.enable && systemd.services.nix-exec.requires == [ ];
        "no open port" = networking.firewall.allowedTCPPorts == [ ];
        "the password is a credential" = systemd.services.nix-exec.serviceConfig.LoadCredential == [ "db-password:/run/secrets/db-password" ];
        "the substituters are trusted" = nix.settings.trusted-substituters == sample.settings.executor.substituters;
      };
    };
    # an API node of a fleet, its cache outside the state directory
    api = {
      module = node {
        role = "api";
        listenAddress = "0.0.0.0";
        port = 8443;
        openFirewall = true;
        database.url = dbUrl;
        settings.executor.cache_dir = "/srv/nix-exec/cache";
      };
      yaml = "expected/api.config.yaml";
      expect = config: with config; {
        "the HTTP port is open" = networking.firewall.allowedTCPPorts == [ 8443 ];
        "the cache directory is created" = systemd.tmpfiles.rules == [ "d /srv/nix-exec/cache 0711 nix-exec nix-exec -" ];
        "and writable" = systemd.services.nix-exec.serviceConfig.ReadWritePaths == [ "/srv/nix-exec/cache" ];
        "no credential" = systemd.services.nix-exec.serviceConfig.LoadCredential == [ ];
      };
    };
    # a worker of a fleet that shares environments: publishes, copies, builds some ahead
    fleet-worker = {
      module = node {
        role = "worker";
        database.url = dbUrl;
        fleet = {
          sharedCache = "/mnt/nix-exec-cache";
          signingKeyFile = "/run/secrets/nix-exec-fleet-key";
          trustedPublicKeys = [ "nix-exec-fleet-1:pLbMgZoBOuNUqIhDkgrOo+YIjWL4j+T/0TdVZ0Jb+wk=" ];
          prebuild = [ "python python3Packages.numpy" "bash @strict" ];
        };
        settings.environments.keep_most_used = 20;
      };
      yaml = "expected/fleet-worker.config.yaml";
      expect = config: with config; {
        "the daemon trusts the fleet's key" = nix.settings.extra-trusted-public-keys == [ "nix-exec-fleet-1:pLbMgZoBOuNUqIhDkgrOo+YIjWL4j+T/0TdVZ0Jb+wk=" ];
        "the shared cache is writable" = systemd.services.nix-exec.serviceConfig.ReadWritePaths == [ "/mnt/nix-exec-cache" ];
        "it is not created as a local directory" = systemd.tmpfiles.rules == [ ];
      };
    };
  };

  fail = {
    fleet-key-without-cache = {
      module = node { database.url = dbUrl; fleet.signingKeyFile = "/run/secrets/k"; };
      failures = [ msg.fleetNeedsCache ];
    };
    fleet-key-in-store = {
      module = node { database.url = dbUrl; fleet = { sharedCache = "/mnt/c"; signingKeyFile = "/nix/store/abc-key"; }; };
      failures = [ msg.keyInStore ];
    };
    no-database = { module = node { }; failures = [ msg.oneDatabase ]; };
    two-databases = { module = node { database = { createLocally = true; url = dbUrl; }; }; failures = [ msg.oneDatabase ]; };
    local-database-name = { module = node { database = { createLocally = true; name = "jobs"; }; }; failures = [ msg.dbName ]; };
    temp-dir-in-tmp = { module = node { database.url = dbUrl; settings.executor.temp_dir = "/tmp/nix-exec"; }; failures = [ msg.hiddenDirs ]; };
    cache-dir-in-home = { module = node { database.url = dbUrl; settings.executor.cache_dir = "/home/nix-exec/cache"; }; failures = [ msg.hiddenDirs ]; };
    no-user-namespaces = {
      module = { imports = [ (node { database.url = dbUrl; }) ]; security.allowUserNamespaces = false; };
      failures = [ msg.userNs ];
    };
    not-allowed-user = {
      module = { imports = [ (node { database.url = dbUrl; user = "svc"; }) ]; nix.settings.allowed-users = [ "root" "@wheel" ]; };
      failures = [ (msg.allowedUsers "svc") ];
    };
  };
}

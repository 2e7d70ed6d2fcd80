# services.nix-exec: one node of a nix-exec fleet (API, worker, or both). A fleet is this module
# on many hosts, all pointing at one PostgreSQL. See docs/operations.md.
{ config, lib, pkgs, ... }:

let
  inherit (lib) mkOption mkEnableOption mkIf mkDefault types optional optionals optionalAttrs;

  cfg = config.services.nix-exec;
  yaml = pkgs.formats.yaml { };
  stateDir = "/var/lib/nix-exec";

  # peer authentication over the local socket: dev.nixexec.database.UnixSocketFactory (the JDK's
  # Unix-domain channels) gives the JDBC driver a Unix socket.
  localDatabaseUrl = "jdbc:postgresql://localhost/${cfg.database.name}"
    + "?socketFactory=dev.nixexec.database.UnixSocketFactory"
    + "&socketFactoryArg=/run/postgresql/.s.PGSQL.${toString config.services.postgresql.settings.port}"
    + "&user=${cfg.user}";

  databaseUrl = if cfg.database.createLocally then localDatabaseUrl else cfg.database.url;

  configText = import ./render-config.nix {
    inherit (cfg) settings role concurrency;
    inherit stateDir databaseUrl;
    environments = fleetSettings;
  };

  # services.nix-exec.fleet as the YAML's environments section (unset ones left out)
  fleetSettings = lib.filterAttrs (name: value: value != null && value != [ ]) {
    shared_cache = cfg.fleet.sharedCache;
    signing_key_file = cfg.fleet.signingKeyFile;
    trusted_public_keys = cfg.fleet.trustedPublicKeys;
    prebuild = cfg.fleet.prebuild;
  };
  publishes = cfg.fleet.sharedCache != null && cfg.fleet.signingKeyFile != null;

  substituters = cfg.settings.executor.substituters or null;

  # The password never enters the store: systemd hands the file over as a credential.
  start = pkgs.writeShellScript "nix-exec-start" ''
    ${lib.optionalString (cfg.database.passwordFile != null) ''
      QUARKUS_DATASOURCE_PASSWORD="$(< "$CREDENTIALS_DIRECTORY/db-password")"
      export QUARKUS_DATASOURCE_PASSWORD
    ''}
    exec ${lib.getExe cfg.package} serve
  '';

  # Typed defaults for the nix-exec keys; any other key of the YAML shape is accepted freely.
  section = options: mkOption {
    default = { };
    type = types.submodule { freeformType = yaml.type; inherit options; };
  };
  opt = type: default: description: mkOption { inherit type default description; };
  absolutePath = types.strMatching "/.+";

  # ProtectSystem=strict leaves only the StateDirectory writable; directories elsewhere are
  # created for the service user and opened explicitly.
  inStateDir = path: path == stateDir || lib.hasPrefix "${stateDir}/" path;
  extraDirs = builtins.filter (path: !inStateDir path)
    [ cfg.settings.executor.cache_dir cfg.settings.executor.temp_dir ];
in
{
  # nix-exec's own module declared programs.nix-exec: its configurations keep working unchanged
  # (an alias, not a rename: no warning for a name its users chose by the book)
  imports = [ (lib.mkAliasOptionModule [ "programs" "nix-exec" ] [ "services" "nix-exec" ]) ];

  options.services.nix-exec = {
    enable = mkEnableOption "nix-exec, a service that runs untrusted code for AI agents";

    package = mkOption {
      type = types.package;
      description = "The nix-exec package (the flake's packages.<system>.default).";
    };

    role = mkOption {
      type = types.enum [ "all" "api" "worker" ];
      default = "all";
      description = "all: takes requests and runs jobs; api: takes requests only; worker: runs jobs only.";
    };

    concurrency = mkOption {
      type = types.ints.positive;
      default = 2;
      description = "Jobs this node runs at once (nixexec.node.concurrency).";
    };

    settings = mkOption {
      default = { };
      description = ''
        The nix-exec YAML config (rendered to /etc/nix-exec/config.yaml): nix-exec's sections
        (server, sandbox, executor, logging) and every other nixexec.* setting in the same shape,
        e.g. jobs.max_queued_per_tenant. See docs/configuration.md. role, concurrency, the state
        directory and the database URL come from this module's own options.
      '';
      type = types.submodule {
        freeformType = yaml.type;
        options = {
          server = section {
            name = opt (types.nullOr types.str) null "Name the MCP server announces (quarkus.mcp.server.server-info.name).";
          };
          sandbox = section {
            timeout = opt (types.either types.str types.ints.positive) "30s" "Default wall-clock limit of a run.";
            max_output_bytes = opt types.ints.positive 1048576 "Bytes kept per output stream.";
            package_denylist = opt (types.listOf types.str) [ ] "Package names that may never be requested.";
            # nix-exec's key; the service's sandbox working directory is fixed, so only this value loads
            workspace_path = opt (types.enum [ "/workspace" ]) "/workspace" "The sandbox's working directory (fixed).";
          };
          executor = section {
            nixpkgs_url = opt types.str "github:NixOS/nixpkgs/nixos-unstable" "Flake URL of nixpkgs, pinned at start and on a schedule.";
            substituters = opt (types.nullOr (types.listOf types.str)) null
              "Substituters for environment builds; null keeps the Nix daemon's. Added to nix.settings.trusted-substituters.";
            build_timeout = opt types.str "10m" "Limit of one environment build.";
            cache_dir = opt absolutePath "/var/lib/nix-exec/cache"
              "Environment metadata and GC roots. Outside /var/lib/nix-exec it is created for the service user and made writable (ReadWritePaths).";
            temp_dir = opt absolutePath "/var/lib/nix-exec/jobs"
              "Per-run directories. Outside /var/lib/nix-exec it is created for the service user and made writable (ReadWritePaths).";
          };
          logging = section {
            level = opt (types.enum [ "debug" "info" "warn" "warning" "error" ]) "info" "Log level (warn, as nix-exec spells it, is warning).";
            format = opt (types.enum [ "text" "json" ]) "text" "json: one JSON object per line (for journald shippers).";
          };
        };
      };
    };

    # Environments shared across the fleet and built ahead: docs/environments.md
    fleet = {
      sharedCache = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        example = "/mnt/nix-exec-cache";
        description = ''
          The fleet's binary cache: a directory every worker mounts (NFS, CephFS...), used as a Nix
          file:// store. Workers with signingKeyFile publish what they build there; workers with
          trustedPublicKeys copy what they lack from there instead of building it.
        '';
      };
      # a string, not a path: a path literal would copy the secret into the world-readable store
      signingKeyFile = mkOption {
        type = types.nullOr absolutePath;
        default = null;
        example = "/run/secrets/nix-exec-fleet-signing-key";
        description = "Secret key (nix-store --generate-binary-cache-key) the worker signs what it publishes with; owned by the service user, mode 0600.";
      };
      trustedPublicKeys = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "nix-exec-fleet-1:..." ];
        description = "Public keys whose signatures make a path in the shared cache trusted; also added to the Nix daemon's trusted-public-keys, which checks each copied path.";
      };
      prebuild = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "python python3Packages.numpy" "bash @strict" ];
        description = "Environments built (or copied) at start in the background: LANGUAGE [PACKAGE ...] or LANGUAGE @PROFILE.";
      };
    };

    database = {
      createLocally = mkOption {
        type = types.bool;
        default = false;
        description = "Run PostgreSQL on this host with a database and role for the service (peer authentication).";
      };
      name = mkOption {
        type = types.str;
        default = "nix-exec";
        description = "Database name when createLocally is set.";
      };
      url = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "jdbc:postgresql://db.internal:5432/nix-exec";
        description = "JDBC URL of an existing PostgreSQL (every node of a fleet points at the same one).";
      };
      user = mkOption {
        type = types.nullOr types.str;
        default = null;
        description = "Database role for database.url (QUARKUS_DATASOURCE_USERNAME).";
      };
      # a string, not a path: a path literal would copy the secret into the world-readable store
      passwordFile = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "/run/secrets/nix-exec-db-password";
        description = "File holding the database password; read at start as a systemd credential, never copied to the store.";
      };
    };

    listenAddress = mkOption {
      type = types.str;
      default = "127.0.0.1";
      description = "Address the HTTP server (REST /v1, MCP /mcp, health /q/health) binds.";
    };

    port = mkOption {
      type = types.port;
      default = 8080;
      description = "HTTP port.";
    };

    trustedProxies = mkOption {
      type = types.listOf types.str;
      default = [ ];
      example = [ "127.0.0.1" ];
      description = ''
        Addresses (or CIDR ranges) of the TLS reverse proxies in front of this node, e.g.
        [ "127.0.0.1" ] for nginx on the same host. Their X-Forwarded-Proto, -Host and -For headers
        are believed (quarkus.http.proxy.*), so the audit UI knows its public https origin; headers
        from any other address are ignored. Empty: forwarded headers are ignored. See
        docs/operations.md for the matching nginx settings.
      '';
    };

    openFirewall = mkOption {
      type = types.bool;
      default = false;
      description = "Open the HTTP port (nodes with role api or all).";
    };

    user = mkOption {
      type = types.str;
      default = "nix-exec";
      description = "User the service runs as (created when left at the default).";
    };

    group = mkOption {
      type = types.str;
      default = "nix-exec";
      description = "Group the service runs as.";
    };

    environmentFile = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "/run/secrets/nix-exec.env";
      description = "systemd EnvironmentFile with secrets, e.g. NIXEXEC_AUTH_BOOTSTRAP_ADMIN_KEY=nx_...";
    };
  };

  config = mkIf cfg.enable {
    assertions = [
      {
        assertion = cfg.database.createLocally != (cfg.database.url != null);
        message = "services.nix-exec: set exactly one of database.createLocally or database.url (the embedded PostgreSQL of a laptop install does not run on NixOS).";
      }
      {
        assertion = cfg.database.createLocally -> cfg.database.name == cfg.user;
        message = "services.nix-exec: with database.createLocally, database.name must equal user (ensureDBOwnership).";
      }
      {
        # PrivateTmp and ProtectHome give the service its own /tmp and hide the home directories
        assertion = !lib.any (path: lib.any (hidden: path == hidden || lib.hasPrefix "${hidden}/" path)
          [ "/tmp" "/var/tmp" "/home" "/root" "/run/user" ]) extraDirs;
        message = "services.nix-exec: settings.executor.cache_dir and temp_dir must not be under /tmp, /var/tmp, /home, /root or /run/user (hidden from the service by PrivateTmp/ProtectHome).";
      }
      {
        assertion = (cfg.fleet.signingKeyFile != null || cfg.fleet.trustedPublicKeys != [ ]) -> cfg.fleet.sharedCache != null;
        message = "services.nix-exec: fleet.signingKeyFile and fleet.trustedPublicKeys need fleet.sharedCache (the directory they publish to and copy from).";
      }
      {
        assertion = cfg.fleet.signingKeyFile == null || !lib.hasPrefix builtins.storeDir cfg.fleet.signingKeyFile;
        message = "services.nix-exec: fleet.signingKeyFile must not be in the Nix store (anyone on the host can read the store).";
      }
      {
        assertion = config.security.allowUserNamespaces;
        message = "services.nix-exec: the sandbox (bubblewrap) needs security.allowUserNamespaces.";
      }
      {
        assertion = lib.elem "*" config.nix.settings.allowed-users || lib.elem cfg.user config.nix.settings.allowed-users;
        message = "services.nix-exec: add ${cfg.user} to nix.settings.allowed-users (it builds environments through the Nix daemon).";
      }
    ];

    environment.etc."nix-exec/config.yaml".text = configText;

    users.users = optionalAttrs (cfg.user == "nix-exec") {
      nix-exec = {
        isSystemUser = true;
        group = cfg.group;
        home = stateDir;
        description = "nix-exec service";
      };
    };
    users.groups = optionalAttrs (cfg.group == "nix-exec") { nix-exec = { }; };

    services.postgresql = mkIf cfg.database.createLocally {
      enable = true;
      ensureDatabases = [ cfg.database.name ];
      ensureUsers = [{ name = cfg.user; ensureDBOwnership = true; }];
    };

    # allowed-users is left alone: defining it here would drop its default "*"; checked above.
    nix.settings = {
      experimental-features = [ "nix-command" "flakes" ];
      trusted-substituters = optionals (substituters != null) substituters;
      # the daemon adds the copied paths to the store: it checks their signatures against these
      extra-trusted-public-keys = cfg.fleet.trustedPublicKeys;
    };

    # 0711 like the state directory: the service checks that only it can write there
    systemd.tmpfiles.rules = map (path: "d ${path} 0711 ${cfg.user} ${cfg.group} -") extraDirs;

    networking.firewall.allowedTCPPorts = optional cfg.openFirewall cfg.port;

    systemd.services.nix-exec = {
      description = "nix-exec (${cfg.role})";
      wantedBy = [ "multi-user.target" ];
      wants = [ "network-online.target" ];
      # postgresql-setup.service creates the role on newer NixOS; ordering after a unit that does
      # not exist is harmless on older ones.
      after = [ "network-online.target" "nix-daemon.socket" ]
        ++ optionals cfg.database.createLocally [ "postgresql.service" "postgresql-setup.service" ];
      requires = optional cfg.database.createLocally "postgresql.service";
      restartTriggers = [ config.environment.etc."nix-exec/config.yaml".source ];
      # the daemon's own nix first; the package's wrapper only appends its nix and bubblewrap.
      # A job with network gets its own network namespace, reached through slirp4netns; ip
      # (iproute2) and nsenter (util-linux) set up its loopback and the tap inside it.
      path = [ config.nix.package pkgs.slirp4netns pkgs.iproute2 pkgs.util-linux ];

      environment = {
        NIX_EXEC_CONFIG = "/etc/nix-exec/config.yaml";
        QUARKUS_HTTP_HOST = cfg.listenAddress;
        QUARKUS_HTTP_PORT = toString cfg.port;
        HOME = stateDir;
      } // optionalAttrs (cfg.database.user != null) {
        QUARKUS_DATASOURCE_USERNAME = cfg.database.user;
      } // optionalAttrs (cfg.trustedProxies != [ ]) {
        QUARKUS_HTTP_PROXY_PROXY_ADDRESS_FORWARDING = "true";
        QUARKUS_HTTP_PROXY_ALLOW_X_FORWARDED = "true";
        QUARKUS_HTTP_PROXY_ENABLE_FORWARDED_HOST = "true";
        QUARKUS_HTTP_PROXY_TRUSTED_PROXIES = lib.concatStringsSep "," cfg.trustedProxies;
      };

      serviceConfig = {
        ExecStart = start;
        User = cfg.user;
        Group = cfg.group;
        StateDirectory = "nix-exec";
        # the service checks that only it can write here; others may traverse to their run dirs
        StateDirectoryMode = "0711";
        ReadWritePaths = extraDirs ++ optional publishes cfg.fleet.sharedCache;
        EnvironmentFile = optional (cfg.environmentFile != null) cfg.environmentFile;
        LoadCredential = optional (cfg.database.passwordFile != null) "db-password:${cfg.database.passwordFile}";
        Restart = "on-failure";
        RestartSec = 5;
        # running jobs get nixexec.jobs.shutdown-grace (20s) to finish
        TimeoutStopSec = 60;
        LimitNOFILE = 65536;
        UMask = "0077";

        # Per-run memory and pids limits: a cgroup v2 subtree the service manages (docs/sandbox.md).
        Delegate = "yes";

        # Hardening that bubblewrap tolerates. bwrap is not setuid here: it needs unprivileged user,
        # mount, pid, net, ipc, uts and cgroup namespaces (so no RestrictNamespaces/PrivateUsers),
        # netlink to bring up the sandbox's loopback, and a /proc it can mount afresh (so no
        # ProtectKernelTunables/ProtectKernelLogs/ProtectProc, whose over-mounts forbid that), and
        # write access to its delegated cgroup (so no ProtectControlGroups).
        NoNewPrivileges = true;
        CapabilityBoundingSet = "";
        AmbientCapabilities = "";
        ProtectSystem = "strict";
        ProtectHome = true;
        PrivateTmp = true;
        PrivateDevices = true;
        ProtectClock = true;
        ProtectHostname = true;
        ProtectKernelModules = true;
        RestrictAddressFamilies = [ "AF_UNIX" "AF_INET" "AF_INET6" "AF_NETLINK" ];
        RestrictRealtime = true;
        RestrictSUIDSGID = true;
        LockPersonality = true;
        SystemCallArchitectures = "native";
        RemoveIPC = true;
      };
    };
  };
}

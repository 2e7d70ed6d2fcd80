package dev.nixexec.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Every {@code nixexec.*} setting; names follow the public contract in API.md. */
@ConfigMapping(prefix = "nixexec")
public interface NixExecConfig {

    /** Embedded database, GC roots, job directories. Default: $XDG_DATA_HOME/nix-exec. */
    Optional<Path> stateDir();

    /**
     * The nix-exec YAML config file ({@code -Dnixexec.config}); read by {@link NixExecYamlSource},
     * declared here so the name is a known setting. Unset: the search order of {@link ConfigFileSearch}.
     */
    Optional<Path> config();

    /** JDBC URL of the database ({@code NIXEXEC_DB_URL}); unset: an embedded PostgreSQL starts. */
    Optional<String> dbUrl();

    Sandbox sandbox();

    Executor executor();

    Node node();

    Auth auth();

    Jobs jobs();

    Mcp mcp();

    Workspaces workspaces();

    Sessions sessions();

    LimitSettings limits();

    Environments environments();

    WebhookSettings webhooks();

    /**
     * Environments built ahead and shared across the fleet (docs/environments.md, "Built ahead,
     * and shared across the fleet").
     */
    interface Environments {
        /**
         * The fleet's binary cache: a directory on storage every worker mounts (NFS, CephFS...),
         * used as Nix's {@code file://} store. Unset: no sharing, every worker builds for itself.
         */
        Optional<Path> sharedCache();

        /**
         * Secret key ({@code nix-store --generate-binary-cache-key}, mode 0600) this worker signs
         * what it builds with before it publishes it to the shared cache. Unset: it publishes nothing.
         */
        Optional<Path> signingKeyFile();

        /**
         * Public keys ({@code name:base64}) whose signature makes a path in the shared cache
         * trusted; unset: this worker copies nothing from the cache.
         */
        Optional<List<String>> trustedPublicKeys();

        /**
         * Environments every worker builds (or copies) in the background at start: each entry is
         * {@code LANGUAGE [PACKAGE ...]} or {@code LANGUAGE @PROFILE} (a built-in profile's packages).
         */
        Optional<List<String>> prebuild();

        /** The most requested environments of the last 24 hours kept built on every worker; 0: none. */
        @WithDefault("10")
        int keepMostUsed();

        /** How often a worker looks for the most requested environments and builds what it lacks. */
        @NonZero
        @WithDefault("15m")
        Duration upkeepInterval();
    }

    Catalog catalog();

    PackageIndex packageIndex();

    /** The catalog of {@code GET /v1/catalog} (docs/api.md). */
    interface Catalog {
        /** A JSON or YAML file {@code {agents: [...], tools: [...]}}; unset: nixo's list. */
        Optional<Path> file();
    }

    /** The package search index of {@code GET /v1/packages}, one per nixpkgs pin (docs/api.md). */
    interface PackageIndex {
        /** List the pinned nixpkgs at start (in the background) rather than on the first search. */
        @WithDefault("true")
        boolean atStart();

        /** How long listing the pinned nixpkgs may take. */
        @NonZero
        @WithDefault("30m")
        Duration buildTimeout();
    }

    /** Sessions: sandboxes that live between commands (docs/api.md "Sessions"). */
    interface Sessions {
        /** Live sessions (building, ready or failed) one tenant may have; one more is 429. */
        @WithDefault("20")
        int maxPerTenant();

        /** A session is destroyed with its files after this long without a command, unless it asks for another. */
        @WithDefault("1h")
        Duration idleTtl();

        /** The longest {@code idle_ttl} a session may ask for. */
        @WithDefault("7d")
        Duration maxIdleTtl();
    }

    Attach attach();

    /** Interactive shells in a session ({@code GET /v1/sessions/{id}/attach}, docs/api.md "Attaching a shell"). */
    interface Attach {
        /** A shell with no byte in either direction for this long ends. */
        @NonZero
        @WithDefault("15m")
        Duration idleTimeout();

        /** The longest a shell lives, however busy. */
        @NonZero
        @WithDefault("1h")
        Duration maxDuration();

        /** Shells one tenant may have open at once, on each node. */
        @NonZero
        @WithDefault("4")
        int maxShellsPerTenant();

        /** Input received but not yet taken by the terminal; above it the connection is closed. */
        @NonZero
        @WithDefault("1048576")
        long maxPendingInputBytes();

        /**
         * The most of a shell's recording kept (what was shown and typed, asciicast v2): past it,
         * the first and last halves are kept and the gap marked, as with a job's output.
         */
        @NonZero
        @WithDefault("1048576")
        long maxRecordingBytes();
    }

    /** Workspaces, inline input files and artifacts (docs/workspaces.md). */
    interface Workspaces {
        /** Quota of a new workspace when its creator names none (bytes of all its files). */
        @WithDefault("104857600")
        long quotaBytes();

        /** Quota of a new workspace when its creator names none (number of files). */
        @WithDefault("10000")
        int quotaFiles();

        /** All workspaces of one tenant together, bytes. */
        @WithDefault("1073741824")
        long tenantBytes();

        /** All workspaces of one tenant together, files. */
        @WithDefault("100000")
        int tenantFiles();

        /** Largest single file a workspace stores (upload or written by a job). */
        @WithDefault("10485760")
        long maxFileBytes();

        /** Inline input files of one job together, decoded. */
        @WithDefault("1048576")
        long maxInputBytes();

        /** Largest single artifact. */
        @WithDefault("10485760")
        long maxArtifactBytes();

        /** All artifacts of one job together. */
        @WithDefault("26214400")
        long maxArtifactsBytes();

        /** How many artifacts one job returns at most. */
        @WithDefault("50")
        int maxArtifacts();

        /**
         * An MCP session's own workspace is deleted once no job ran on it and no file of it was
         * listed, read or written for this long (checked hourly); 0 keeps them for ever.
         */
        @WithDefault("24h")
        Duration sessionIdleTtl();
    }

    interface Mcp {
        /** How long {@code run_code} waits for its job before handing back the id to poll. */
        @WithDefault("50s")
        Duration runWait();

        Roots roots();

        /**
         * MCP roots in the single-user local mode: a client's {@code file://} root on this host,
         * inside one of the allowed prefixes, is mounted read-write at {@code /workspace}. Ignored
         * when authentication is on: a remote tenant never gets a host path.
         */
        interface Roots {
            @WithDefault("false")
            boolean enabled();

            /**
             * Directories under which a root may be mounted, and from which run_code's files and
             * writable_files may come (local mode); none: neither is mounted.
             */
            Optional<List<Path>> allowedPrefixes();
        }
    }

    interface Node {
        /** {@code all} (intake and worker), {@code api} (intake only) or {@code worker}. */
        @OneOf({"all", "api", "worker"})
        @WithDefault("all")
        String role();

        /** Jobs this node runs at once. */
        @NonZero
        @WithDefault("2")
        int concurrency();

        /** This node's name in the fleet; default: host name and a random suffix. */
        Optional<String> id();
    }

    interface Auth {
        /** Off: single-user local mode, every request acts as the operator of one default tenant. */
        @WithDefault("true")
        boolean enabled();

        /** An operator key with this secret is made sure to exist at start-up (idempotent; promotes an older admin key). */
        Optional<String> bootstrapAdminKey();

        /**
         * How long a node keeps a looked-up key and tenant policy; revokes reach every node at
         * once through a notification, this bounds changes made in the database by hand. 0: off.
         */
        @WithDefault("10s")
        Duration cacheTtl();

        /**
         * With authentication off, the HTTP (and management) interface may listen on a
         * non-loopback address; without it such a start is refused. Either way only loopback peers
         * are answered in local mode (api/LocalModePeerCheck).
         */
        @WithDefault("false")
        boolean localModeAllowNonLoopbackBind();

        /**
         * Local mode: every request on every path must carry {@code Authorization: Bearer} this
         * secret, or gets 401. nix-exec's stdio server sets a random one for its in-process
         * service, so other users of this machine cannot use it through its loopback port.
         */
        Optional<String> localModeSecret();
    }

    interface Jobs {
        /** How long a claim holds without a heartbeat before the reaper takes the job back. */
        @NonZero
        @WithDefault("30s")
        Duration lease();

        /** Heartbeat and reaper period. */
        @NonZero
        @WithDefault("5s")
        Duration heartbeat();

        /** Claims of a job whose user code never started before it ends as an error. */
        @NonZero
        @WithDefault("3")
        int maxAttempts();

        /** The longest {@code wait} a request may ask for. */
        @WithDefault("60s")
        Duration maxWait();

        /** Fallback poll when no notification arrives. */
        @NonZero
        @WithDefault("2s")
        Duration poll();

        /** Queued jobs of all tenants together; above it submissions get 503 (the queue is full). */
        @WithDefault("100000")
        int maxQueued();

        /** Default caps of a tenant without its own. */
        @WithDefault("1000")
        int maxQueuedPerTenant();

        @WithDefault("16")
        int maxRunningPerTenant();

        /** Finished jobs, their events and audit records older than this are deleted. */
        @WithDefault("30d")
        Duration retention();

        /** How long running jobs may finish on shutdown before they are ended. */
        @WithDefault("20s")
        Duration shutdownGrace();

        /** A job's {@code metadata} as JSON; larger is refused (413). */
        @WithDefault("16384")
        int maxMetadataBytes();

        /**
         * Tenants a node names in the {@code tenant} label of its job counters: the first this many
         * it counts; the rest share {@code other}, so a platform of many tenants stays a bounded set of series.
         */
        @WithDefault("20")
        int metricTenants();
    }

    interface Sandbox {
        /** Wall-clock limit of one run, unless the request asks for less. */
        @NonZero
        @WithDefault("30s")
        Duration timeout();

        /** Upper bound a request may ask for. */
        @NonZero
        @WithDefault("10m")
        Duration maxTimeout();

        /** Bytes kept per stream (head and tail); the true count is reported too. */
        @WithDefault("1048576")
        long maxOutputBytes();

        /** Exact names, or prefixes ending in '.', that may never be requested. */
        Optional<List<String>> packageDenylist();

        /** When set, only these names (or prefixes ending in '.') may be requested. */
        Optional<List<String>> packageAllowlist();

        @NonZero

        @WithDefault("536870912")
        long memoryBytes();

        @NonZero

        @WithDefault("256")
        int maxProcesses();

        /** CPU seconds (RLIMIT_CPU); 0 = derived from the wall timeout. */
        @WithDefault("0")
        long cpuSeconds();

        /** Largest single file the code may write (RLIMIT_FSIZE). */
        @WithDefault("104857600")
        long maxFileBytes();

        @NonZero

        @WithDefault("67108864")
        long tmpBytes();

        @NonZero

        @WithDefault("268435456")
        long workspaceBytes();

        /**
         * What a run sees under /nix/store: closure (its environment's closure only, through a view
         * prepared once per closure) or whole-store.
         */
        @OneOf({"whole-store", "closure"})
        @WithDefault("closure")
        String storeView();

        /**
         * When the service runs as root, each concurrent run gets an unused host uid (and gid) from
         * this base upwards; as a normal user, runs keep the service's uid.
         */
        @NonZero
        @WithDefault("3200000")
        int hostUidBase();

        /** Sandbox launchers kept started and waiting, so a run does not wait for cgroup set-up. */
        @WithDefault("2")
        int warmLaunchers();

        /**
         * Parent cgroup for per-job cgroups; empty = the service's own cgroup. It must lie in the
         * cgroup filesystem: anything else counts as no cgroups.
         */
        Optional<String> cgroupParent();

        /**
         * Run jobs even where no per-run cgroup can be made, with rlimits only (memory and processes
         * then hold far less well; see docs/sandbox.md). Off: such a worker is not ready and claims no jobs.
         */
        @WithDefault("false")
        boolean allowWithoutCgroups();

        @WithDefault("1048576")
        int maxCodeBytes();

        @WithDefault("1048576")
        int maxStdinBytes();

        @WithDefault("65536")
        int maxEnvBytes();

        /**
         * Ranges a networked run may reach although they are private, shared, link-local or
         * otherwise not the internet (refused by default: docs/sandbox.md, "Network"), as IPv4 CIDRs.
         */
        Optional<List<String>> networkAllowedRanges();

        /**
         * The name servers a networked run's /etc/resolv.conf lists; the default is the user-mode
         * stack's own, which asks the node's resolvers.
         */
        @WithDefault("10.0.2.3")
        List<String> networkDns();

        /**
         * The network namespace (a path such as /run/netns/egress) a networked run's traffic leaves
         * from; default: the service's own.
         */
        Optional<Path> networkEgressNamespace();
    }

    interface Executor {
        @WithDefault("github:NixOS/nixpkgs/nixos-unstable")
        String nixpkgsUrl();

        /**
         * Space-separated substituter URLs; {@code none} means offline. Unset: Nix's own setting.
         * (An empty value cannot be told apart from an unset one in Quarkus configuration.)
         */
        Optional<String> substituters();

        /** GC roots and environment metadata; default: <state-dir>/cache. */
        Optional<Path> cacheDir();

        /** Per-job directories; default: <state-dir>/jobs. */
        Optional<Path> tempDir();

        @NonZero

        @WithDefault("10m")
        Duration buildTimeout();

        /** Extra Nix settings as {@code name=value}, passed as {@code --option name value}. */
        Optional<List<String>> nixOptions();

        /** How often the configured nixpkgs URL is resolved to a new locked revision. */
        @NonZero
        @WithDefault("6h")
        Duration nixpkgsRefresh();

        @WithDefault("nix")
        String nixCommand();

        @WithDefault("bwrap")
        String bwrapCommand();

        /** The user-mode network stack of networked runs. */
        @WithDefault("slirp4netns")
        String slirp4netnsCommand();

        @WithDefault("x86_64-linux")
        String system();
    }
}

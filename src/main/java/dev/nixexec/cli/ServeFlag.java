package dev.nixexec.cli;

import java.util.List;

/**
 * A flag of nix-exec's command line ({@code nix-exec serve}, and {@code nix-exec} itself as an MCP
 * stdio server): the YAML key it sets (through the same translation and checks as the YAML
 * file), or the property when it has no YAML key. The first twelve are nix-exec's own, by its
 * names; {@code aliases} are this project's earlier shorter names. docs/configuration.md lists
 * them beside the YAML keys; a test keeps the two equal.
 */
record ServeFlag(String name, String label, String yamlKey, String property, String description, List<String> aliases) {

    static final List<ServeFlag> ALL = List.of(
            new ServeFlag("config", "FILE", null, "nixexec.config", "the nix-exec YAML file to read", List.of()),
            new ServeFlag("name", "NAME", "server.name", null, "the name the MCP server announces", List.of()),
            new ServeFlag("timeout", "DURATION", "sandbox.timeout", null, "a job's default time limit (30s, 5m, or seconds)", List.of()),
            new ServeFlag("max-output-bytes", "BYTES", "sandbox.max_output_bytes", null, "stdout and stderr kept per stream",
                    List.of("max-output")),
            new ServeFlag("workspace-path", "PATH", "sandbox.workspace_path", null,
                    "the sandbox's working directory: \"\" or /workspace (fixed)", List.of("workspace")),
            new ServeFlag("package-denylist", "NAMES", "sandbox.package_denylist", null,
                    "packages jobs may not use, comma-separated (a name, or a prefix ending in .)", List.of()),
            new ServeFlag("cache-dir", "DIR", "executor.cache_dir", null, "where built environments are kept", List.of()),
            new ServeFlag("temp-dir", "DIR", "executor.temp_dir", null, "where jobs' run directories go", List.of()),
            new ServeFlag("nixpkgs-url", "FLAKE-URL", "executor.nixpkgs_url", null, "the nixpkgs jobs are built from",
                    List.of("nixpkgs")),
            new ServeFlag("substituters", "URLS", "executor.substituters", null, "binary caches, comma- or space-separated; none for none", List.of()),
            new ServeFlag("log-level", "LEVEL", "logging.level", null, "debug, info, warning or error", List.of()),
            new ServeFlag("log-format", "FORMAT", "logging.format", null, "text or json", List.of()),
            new ServeFlag("build-timeout", "DURATION", "executor.build_timeout", null, "the longest environment build", List.of()),
            new ServeFlag("state-dir", "DIR", "state_dir", null, "the service's state (cache, embedded PostgreSQL)", List.of()),
            new ServeFlag("db-url", "JDBC-URL", "db_url", null, "the PostgreSQL database; none: an embedded one", List.of()),
            new ServeFlag("role", "ROLE", "node.role", null, "all, api or worker", List.of()),
            new ServeFlag("concurrency", "N", "node.concurrency", null, "jobs this node runs at once", List.of()),
            new ServeFlag("host", "ADDRESS", null, "quarkus.http.host", "the address to listen on", List.of()),
            new ServeFlag("port", "PORT", null, "quarkus.http.port", "the port to listen on (0: any free one)", List.of()));

    String flag() {
        return "-" + name;
    }

    /** Its spellings: one dash and two. */
    String[] spellings() {
        return new String[] {"-" + name, "--" + name};
    }

    /** An alias's spellings, e.g. {@code -max-output} and {@code --max-output}. */
    static String[] spellings(String alias) {
        return new String[] {"-" + alias, "--" + alias};
    }
}

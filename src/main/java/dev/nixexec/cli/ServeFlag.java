package dev.nixexec.cli;

import java.util.List;

/**
 * A flag of {@code nix-exec serve}, nix-exec's command line: the YAML key it sets (through the
 * same translation and checks as the YAML file), or the property when it has no YAML key.
 * docs/configuration.md lists them beside the YAML keys; a test keeps the two equal.
 */
record ServeFlag(String name, String label, String yamlKey, String property, String description) {

    static final List<ServeFlag> ALL = List.of(
            new ServeFlag("config", "FILE", null, "nixexec.config", "the nix-exec YAML file to read"),
            new ServeFlag("timeout", "DURATION", "sandbox.timeout", null, "a job's default time limit (30s, 5m, or seconds)"),
            new ServeFlag("max-output", "BYTES", "sandbox.max_output_bytes", null, "stdout and stderr kept per stream"),
            new ServeFlag("log-level", "LEVEL", "logging.level", null, "debug, info, warning or error"),
            new ServeFlag("log-format", "FORMAT", "logging.format", null, "text or json"),
            new ServeFlag("name", "NAME", "server.name", null, "the name the MCP server announces"),
            new ServeFlag("nixpkgs", "FLAKE-URL", "executor.nixpkgs_url", null, "the nixpkgs jobs are built from"),
            new ServeFlag("substituters", "URLS", "executor.substituters", null, "binary caches, comma- or space-separated; none for none"),
            new ServeFlag("cache-dir", "DIR", "executor.cache_dir", null, "where built environments are kept"),
            new ServeFlag("temp-dir", "DIR", "executor.temp_dir", null, "where jobs' run directories go"),
            new ServeFlag("workspace", "PATH", "sandbox.workspace_path", null, "the sandbox's working directory: only /workspace"),
            new ServeFlag("build-timeout", "DURATION", "executor.build_timeout", null, "the longest environment build"),
            new ServeFlag("state-dir", "DIR", "state_dir", null, "the service's state (cache, embedded PostgreSQL)"),
            new ServeFlag("db-url", "JDBC-URL", "db_url", null, "the PostgreSQL database; none: an embedded one"),
            new ServeFlag("role", "ROLE", "node.role", null, "all, api or worker"),
            new ServeFlag("concurrency", "N", "node.concurrency", null, "jobs this node runs at once"),
            new ServeFlag("host", "ADDRESS", null, "quarkus.http.host", "the address to listen on"),
            new ServeFlag("port", "PORT", null, "quarkus.http.port", "the port to listen on (0: any free one)"));

    String flag() {
        return "-" + name;
    }
}

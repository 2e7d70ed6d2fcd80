# A sample `services.nix-exec` configuration. ModuleRenderingTest renders it with
# ../render-config.nix (as the module does) and loads the result with the service's config
# loader; src/test/resources/nixos/config.yaml is the expected rendering (see docs/configuration.md).
{
  role = "worker";
  concurrency = 4;
  stateDir = "/var/lib/nix-exec";
  databaseUrl = "jdbc:postgresql://db.internal:5432/nix-exec";
  settings = {
    server.name = "nix-exec-fleet";
    sandbox = {
      timeout = "45s";
      max_output_bytes = 2097152;
      workspace_path = "/workspace";
      package_denylist = [ "nixos" "nixosTests." ];
      memory_bytes = 1073741824;
      cgroup_parent = null;
    };
    executor = {
      nixpkgs_url = "github:NixOS/nixpkgs/nixos-24.11";
      substituters = [ "https://cache.nixos.org" "http://cache.internal:5000" ];
      build_timeout = "15m";
      cache_dir = "/var/lib/nix-exec/cache";
      temp_dir = "/var/lib/nix-exec/jobs";
    };
    logging = {
      level = "info";
      format = "json";
    };
    jobs = {
      lease = "45s";
      max_queued_per_tenant = 500;
    };
    auth.enabled = true;
  };
}

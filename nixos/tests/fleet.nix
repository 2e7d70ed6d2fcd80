# A fleet in VMs: `db` runs PostgreSQL (database.createLocally) and the API role; worker1 and
# worker2 run jobs against db's database. Jobs go in over REST and MCP; both workers must run
# some; a job whose worker is killed mid-run must not hang (the reaper ends it worker_lost) and
# later jobs still run on the survivor. Needs KVM and nixpkgs: `nix flake check` (or
# `nix build .#checks.x86_64-linux.fleet`).
{ pkgs, nixpkgs, nixExecModule, nixExecPackage }:

let
  adminKey = "nx_vmtest_admin_key";
  # Test-only secret, in the store on purpose; real deployments use a file outside it.
  dbPassword = "vmtest-password";

  # The environment of a bash job with no packages, exactly as nix/env.nix builds it, put into
  # the VMs' stores so no VM needs the network. Its build inputs come along in case the
  # evaluation inside the VM differs in some detail.
  hostPkgs = nixpkgs.legacyPackages.x86_64-linux;
  bashEnv = import ../../nix/env.nix {
    pkgs = hostPkgs;
    request = {
      system = "x86_64-linux";
      interpreter = [ "bash" ];
      with_packages = null;
      set_packages = [ ];
      packages = [ ];
      base = [ [ "bash" ] [ "coreutils" ] ];
    };
  };

  common = { lib, ... }: {
    imports = [ nixExecModule ];
    virtualisation.memorySize = 2048;
    virtualisation.diskSize = 4096;
    virtualisation.additionalPaths = [ bashEnv bashEnv.inputDerivation nixpkgs.outPath ];
    nix.settings.substituters = lib.mkForce [ ];
    services.nix-exec = {
      enable = true;
      package = nixExecPackage;
      settings = {
        executor.nixpkgs_url = "path:${nixpkgs.outPath}";
        jobs = { lease = "10s"; heartbeat = "2s"; };
      };
    };
  };

  worker = { lib, ... }: {
    imports = [ common ];
    services.nix-exec = {
      role = "worker";
      database = {
        url = "jdbc:postgresql://db:5432/nix-exec";
        user = "nix-exec";
        passwordFile = pkgs.writeText "nix-exec-db-password" dbPassword;
      };
    };
    # started by the test once db has given the role its password
    systemd.services.nix-exec.wantedBy = lib.mkForce [ ];
  };
in
pkgs.testers.runNixOSTest {
  name = "nix-exec-fleet";

  nodes = {
    db = { lib, ... }: {
      imports = [ common ];
      services.nix-exec = {
        role = "api";
        database.createLocally = true;
        listenAddress = "0.0.0.0";
        openFirewall = true;
        environmentFile = pkgs.writeText "nix-exec.env" "NIXEXEC_AUTH_BOOTSTRAP_ADMIN_KEY=${adminKey}\n";
      };
      services.postgresql = {
        enableTCPIP = true;
        authentication = lib.mkAfter "host nix-exec nix-exec 0.0.0.0/0 scram-sha-256\n";
      };
      networking.firewall.allowedTCPPorts = [ 5432 ];
    };
    worker1 = worker;
    worker2 = worker;
  };

  testScript = ''
    import json

    AUTH = "-H 'Authorization: Bearer ${adminKey}' -H 'Content-Type: application/json'"
    API = "http://localhost:8080"

    def rest(method, path, body=None):
        data = f"-d '{json.dumps(body)}'" if body is not None else ""
        return json.loads(db.succeed(f"curl -sS --fail-with-body -X {method} {AUTH} {data} '{API}{path}'"))

    def finished(job_id):
        for _ in range(20):
            job = rest("GET", f"/v1/jobs/{job_id}?wait=30")
            if job["status"] not in ("queued", "building", "running"):
                return job
        raise Exception(f"job {job_id} never finished: {job}")

    def mcp(body, session=None):
        headers = AUTH + " -H 'Accept: application/json, text/event-stream'"
        if session:
            headers += f" -H 'Mcp-Session-Id: {session}'"
        out = db.succeed(
            f"curl -sS -D /tmp/mcp-headers {headers} -d '{json.dumps(body)}' {API}/mcp;"
            " echo; echo '--headers--'; cat /tmp/mcp-headers")
        payload, head = out.split("--headers--", 1)
        session = next((line.split(":", 1)[1].strip() for line in head.splitlines()
                        if line.lower().startswith("mcp-session-id:")), session)
        data = [line[5:].strip() for line in payload.splitlines() if line.startswith("data:")]
        text = data[-1] if data else payload.strip()
        return (json.loads(text) if text else None), session

    start_all()
    db.wait_for_unit("postgresql.service")
    db.wait_until_succeeds(
        "runuser -u postgres -- psql -tAc \"select 1 from pg_roles where rolname = 'nix-exec'\" | grep -q 1")
    db.succeed("runuser -u postgres -- psql -c \"ALTER ROLE \\\"nix-exec\\\" PASSWORD '${dbPassword}'\"")
    db.wait_for_unit("nix-exec.service")
    db.wait_until_succeeds(f"curl -sf {API}/q/health/ready")

    with subtest("the rendered config is the one the service reads"):
        db.succeed("grep -q '\"role\":\"api\"' /etc/nix-exec/config.yaml")
        db.succeed("grep -q 'socketFactory' /etc/nix-exec/config.yaml")

    for w in (worker1, worker2):
        w.succeed("systemctl start nix-exec.service")
        w.wait_for_unit("nix-exec.service")
    db.wait_until_succeeds(
        f"curl -sf {AUTH} {API}/v1/nodes | grep -q worker1 && curl -sf {AUTH} {API}/v1/nodes | grep -q worker2")

    with subtest("REST jobs run on both workers"):
        ids = [rest("POST", "/v1/jobs", {"language": "bash", "code": f"sleep 2; echo job-{i}"})["id"]
               for i in range(8)]
        jobs = [finished(i) for i in ids]
        for n, job in enumerate(jobs):
            assert job["status"] == "succeeded", job
            assert job["stdout"].strip() == f"job-{n}", job
        nodes = {job["node_id"] for job in jobs}
        assert any("worker1" in n for n in nodes) and any("worker2" in n for n in nodes), nodes

    with subtest("MCP run_code"):
        init, session = mcp({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "vmtest", "version": "1"}}})
        assert init["result"]["serverInfo"], init
        mcp({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        result, _ = mcp({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "run_code", "arguments": {"language": "bash", "code": "echo from-mcp"}}}, session)
        text = result["result"]["content"][0]["text"]
        assert "Exit code: 0" in text and "from-mcp" in text, result
        assert not result["result"].get("isError"), result

    with subtest("a killed worker's job is recovered"):
        job_id = rest("POST", "/v1/jobs", {"language": "bash", "code": "echo started; sleep 600"})["id"]
        db.wait_until_succeeds(
            f"curl -sf {AUTH} '{API}/v1/jobs/{job_id}' | grep -q '\"status\":\"running\"'", timeout=120)
        node = rest("GET", f"/v1/jobs/{job_id}")["node_id"]
        victim, survivor = (worker1, worker2) if "worker1" in node else (worker2, worker1)
        victim.succeed("systemctl kill --signal=SIGKILL nix-exec.service")
        victim.succeed("systemctl stop nix-exec.service")
        job = finished(job_id)
        # it had started user code, so it is not run again (at most once): it ends worker_lost
        assert job["status"] == "error" and job["error"]["code"] == "worker_lost", job
        after = finished(rest("POST", "/v1/jobs", {"language": "bash", "code": "echo still-served"})["id"])
        assert after["status"] == "succeeded" and after["stdout"].strip() == "still-served", after
        assert survivor.name in after["node_id"], after
  '';
}

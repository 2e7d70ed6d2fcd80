package dev.nixexec.sandbox;

import dev.nixexec.config.HostMount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bubblewrap argv for one run, built as a list: nothing passes through a shell, and {@code --}
 * separates bubblewrap's options from the command.
 */
public final class BwrapArguments {

    /** The uid and gid the code sees inside; matches the synthetic /etc/passwd. */
    public static final int SANDBOX_UID = 1000;
    public static final String WORKSPACE = "/workspace";
    /** Where a job with network finds its CA bundle, inside its environment. */
    public static final String CA_BUNDLE = "etc/ssl/certs/ca-bundle.crt";
    public static final String CODE_DIR = "/code";
    /** Ruby's unbuffered stdout ({@code STDOUT.sync}), which no variable or flag sets: a file beside the code. */
    static final String RUBY_PRELUDE_FILE = ".stdout-sync.rb";
    static final String RUBY_PRELUDE = CODE_DIR + "/" + RUBY_PRELUDE_FILE;
    private static final long DEV_SHM_BYTES = 16 * 1024 * 1024;

    private BwrapArguments() {
    }

    /**
     * Everything before {@code --}: namespaces, mounts, environment. {@code codeDir} holds the code
     * file (read-only at /code), {@code etcDir} passwd, group, hosts, nsswitch.conf. {@code newSession}
     * is false only for a shell on the service's own pseudo-terminal, which stays its controlling
     * terminal (job control, Ctrl-C): {@code --new-session} guards a terminal the sandbox shares with someone else, and this
     * one it shares with nobody (docs/security.md, "The attached terminal").
     */
    public static List<String> options(SandboxSpec spec, Path codeDir, Path etcDir, StoreMount store, boolean newSession) {
        List<String> a = new ArrayList<>();
        a.addAll(List.of("--unshare-all", "--unshare-user", "--die-with-parent"));
        if (newSession) {
            a.add("--new-session");
        }
        a.addAll(List.of("--cap-drop", "ALL", "--clearenv", "--disable-userns", "--assert-userns-disabled",
                "--uid", Integer.toString(SANDBOX_UID), "--gid", Integer.toString(SANDBOX_UID),
                "--hostname", "sandbox"));
        if (spec.network()) {
            // the run keeps its own network namespace (--unshare-all): UserModeNetwork gives it one
            a.addAll(List.of("--ro-bind", etcDir.resolve(RESOLV_CONF).toString(), "/etc/" + RESOLV_CONF));
        }
        a.addAll(store.bwrapOptions());
        // bubblewrap's /dev is a tmpfs of no set size (--size applies to --tmpfs only): read-only
        // once /dev/shm is made, so the only writable place there is the sized /dev/shm.
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev",
                "--size", Long.toString(DEV_SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                "--size", Long.toString(spec.limits().tmpBytes()), "--tmpfs", "/tmp"));
        if (spec.persistent().isPresent()) {
            PersistentPaths persistent = spec.persistent().get();
            for (PersistentPaths.Mount m : PersistentPaths.MOUNTS) {
                boolean host = m.target().equals(WORKSPACE) && spec.hostWorkspace().isPresent();
                a.addAll(List.of(persistent.writable(m.target()) ? "--bind" : "--ro-bind",
                        host ? spec.hostWorkspace().get().toString() : persistent.root().resolve(m.directory()).toString(),
                        m.target()));
            }
            if (!persistent.writable(PersistentPaths.TMP)) {
                a.addAll(List.of("--remount-ro", PersistentPaths.TMP));
            }
        } else if (spec.workspaceMount().isPresent()) {
            a.addAll(List.of("--bind", spec.workspaceMount().get().toString(), WORKSPACE));
        } else {
            a.addAll(List.of("--size", Long.toString(spec.limits().workspaceBytes()), "--tmpfs", WORKSPACE));
        }
        a.addAll(List.of("--ro-bind", codeDir.toString(), CODE_DIR));
        // after /tmp and /workspace, which a host path may lie under (its mount point is made in
        // the sandbox's own tmpfs); never under /workspace (HostWorkspaces), so nothing is created
        // in a directory that is stored back
        for (HostMount mount : spec.hostMounts()) {
            a.addAll(List.of(mount.writable() ? "--bind" : "--ro-bind", mount.path().toString(), mount.path().toString()));
        }
        for (String file : List.of("passwd", "group", "hosts", "nsswitch.conf")) {
            a.addAll(List.of("--ro-bind", etcDir.resolve(file).toString(), "/etc/" + file));
        }
        String bin = spec.environmentPath() + "/bin";
        a.addAll(List.of("--symlink", bin + "/bash", "/bin/sh",
                "--symlink", bin + "/env", "/usr/bin/env",
                "--remount-ro", "/",
                "--chdir", WORKSPACE));
        for (Map.Entry<String, String> e : environment(spec).entrySet()) {
            a.addAll(List.of("--setenv", e.getKey(), e.getValue()));
        }
        return a;
    }

    /** The interpreter invocation: everything after {@code --}; the caller's arguments last, each one element. */
    public static List<String> command(SandboxSpec spec) {
        List<String> c = new ArrayList<>();
        c.add(spec.environmentPath() + "/bin/" + spec.command().get(0));
        c.addAll(spec.command().subList(1, spec.command().size()));
        c.add(CODE_DIR + "/" + spec.codeFileName());
        c.addAll(spec.args());
        return c;
    }

    /** The fixed variables, then the (validated) user's; the user's cannot replace the fixed ones. */
    static Map<String, String> environment(SandboxSpec spec) {
        Map<String, String> env = new TreeMap<>(spec.env());
        env.put("PATH", spec.environmentPath() + "/bin");
        env.put("HOME", spec.persistent().isPresent() ? PersistentPaths.HOME : WORKSPACE);
        env.put("TMPDIR", "/tmp");
        env.put("USER", "sandbox");
        env.put("LOGNAME", "sandbox");
        env.putIfAbsent("LANG", "C.UTF-8");
        unbuffered(env);
        if (spec.network()) {
            // the environment's CA bundle (nixpkgs' cacert), where OpenSSL, curl, git and Nix look
            env.putIfAbsent("SSL_CERT_FILE", spec.environmentPath() + "/" + CA_BUNDLE);
            env.putIfAbsent("NIX_SSL_CERT_FILE", spec.environmentPath() + "/" + CA_BUNDLE);
        }
        return env;
    }

    /**
     * Output written before a kill (timeout, memory, CPU) must reach the pipe: interpreters that
     * buffer stdout when it is not a terminal are told not to, by variables rather than by touching
     * the code, so nested interpreters (a bash job's python) follow and line numbers stay. The
     * caller's own setting of a variable wins; Ruby's is added to the caller's RUBYOPT.
     */
    private static void unbuffered(Map<String, String> env) {
        env.putIfAbsent("PYTHONUNBUFFERED", "1");
        env.putIfAbsent("PERL5OPT", "-M5;$|=1");
        env.putIfAbsent("LUA_INIT", "io.stdout:setvbuf('no')");
        env.merge("RUBYOPT", "-r" + RUBY_PRELUDE, (own, ours) -> ours + " " + own);
    }

    /** A networked run's resolver configuration, among {@link #etcFiles}. */
    static final String RESOLV_CONF = "resolv.conf";

    /**
     * The synthetic /etc files: a user and group for the sandbox uid, localhost only, and for a
     * networked run the name servers it asks.
     */
    public static Map<String, String> etcFiles(List<String> nameServers) {
        StringBuilder resolv = new StringBuilder();
        nameServers.forEach(server -> resolv.append("nameserver ").append(server).append('\n'));
        return Map.of(RESOLV_CONF, resolv.toString(),
                "passwd", "root:x:0:0:root:/var/empty:/bin/sh\nsandbox:x:" + SANDBOX_UID + ":" + SANDBOX_UID
                        + ":sandbox:" + WORKSPACE + ":/bin/sh\nnobody:x:65534:65534:nobody:/var/empty:/bin/false\n",
                "group", "root:x:0:\nsandbox:x:" + SANDBOX_UID + ":\nnogroup:x:65534:\n",
                "hosts", "127.0.0.1 localhost sandbox\n::1 localhost sandbox\n",
                "nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n");
    }
}

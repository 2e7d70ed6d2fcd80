import dev.nixexec.bench.BareHttp;
import dev.nixexec.bench.DirectPythonRun;
import java.io.*;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;

/**
 * End-to-end overhead of {@code POST /v1/jobs?wait} (docs/benchmarks.md, "End-to-end overhead
 * (issue 18)"): services started with serve.sh (two builds side by side), request by request in
 * rotating order with the same bubblewrap command run directly, 50 ms apart, over one kept-alive
 * bare HTTP/1.1 socket per service; each request's own service's {@code GET /q/health/live} round
 * trip is taken off. After one python job on each service (its environment built):
 *
 * <pre>java -cp TREE/target/classes:TREE/target/test-classes src/test/latency-ab/AbClient.java RUNS STORE_PATH name=port name=port</pre>
 *
 * STORE_PATH is the environment's {@code store_path} from that first job's answer.
 */
public class AbClient {
    static final String KEY = "nx_test_bootstrap_admin_secret";
    static final String BODY = "{\"language\":\"python\",\"code\":\"print(1)\"}";

    public static void main(String[] a) throws Exception {
        int runs = Integer.parseInt(a[0]);
        String env = a[1];
        List<String> names = new ArrayList<>();
        List<BareHttp> clients = new ArrayList<>();
        List<String> posts = new ArrayList<>();
        List<String> lives = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            String[] nv = a[i].split("=");
            names.add(nv[0]);
            URI service = URI.create("http://127.0.0.1:" + nv[1] + "/v1/jobs");
            clients.add(new BareHttp(service));
            posts.add(BareHttp.request("POST", service, "?wait=30", KEY, BODY));
            lives.add(BareHttp.request("GET", service.resolve("/q/health/live"), "", KEY, null));
        }
        int n = names.size();
        double[][] post = new double[n][runs];
        double[][] live = new double[n][runs];
        double[] direct = new double[runs];
        DirectPythonRun directRun = DirectPythonRun.in(env);
        // warm-up
        for (int w = 0; w < 3; w++) {
            for (int s = 0; s < n; s++) {
                clients.get(s).exchange(posts.get(s));
                clients.get(s).exchange(lives.get(s));
            }
            directRun.timeMs();
        }
        for (int i = 0; i < runs; i++) {
            for (int k = 0; k <= n; k++) {
                int s = (i + k) % (n + 1);
                Thread.sleep(50);
                if (s == n) {
                    direct[i] = directRun.timeMs();
                    continue;
                }
                BareHttp c = clients.get(s);
                long t = System.nanoTime();
                String body = c.exchange(posts.get(s));
                post[s][i] = (System.nanoTime() - t) / 1e6;
                if (!body.contains("\"status\":\"succeeded\"")) {
                    throw new IllegalStateException(names.get(s) + ": " + body);
                }
                Thread.sleep(20);
                t = System.nanoTime();
                c.exchange(lives.get(s));
                live[s][i] = (System.nanoTime() - t) / 1e6;
            }
        }
        System.out.printf("runs %d, load %s%n", runs, Files.readString(Path.of("/proc/loadavg")).strip());
        System.out.printf("| what | p50 | p90 |%n|---|---|---|%n");
        System.out.printf("| bwrap run directly | %.1f | %.1f |%n", pct(direct, .5), pct(direct, .9));
        for (int s = 0; s < n; s++) {
            double[] over = new double[runs];
            for (int i = 0; i < runs; i++) {
                over[i] = post[s][i] - live[s][i];
            }
            System.out.printf("| %s POST ?wait | %.1f | %.1f |%n", names.get(s), pct(post[s], .5), pct(post[s], .9));
            System.out.printf("| %s /q/health/live | %.2f | %.2f |%n", names.get(s), pct(live[s], .5), pct(live[s], .9));
            System.out.printf("| %s POST - live - direct(p50) | %.1f | %.1f |%n", names.get(s),
                    pct(over, .5) - pct(direct, .5), pct(over, .9) - pct(direct, .5));
        }
        if (n == 2) {
            double[] diff = new double[runs];
            for (int i = 0; i < runs; i++) {
                diff[i] = post[1][i] - post[0][i];
            }
            System.out.printf("| %s - %s, paired per round | %.1f | %.1f (p10) |%n", names.get(1), names.get(0),
                    pct(diff, .5), pct(diff, .1));
        }
    }

    static double pct(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}

import dev.nixexec.bench.DirectPythonRun;
import java.io.*;
import java.net.Socket;
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
        List<Bare> clients = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
            String[] nv = a[i].split("=");
            names.add(nv[0]);
            clients.add(new Bare("127.0.0.1", Integer.parseInt(nv[1])));
        }
        int n = names.size();
        double[][] post = new double[n][runs];
        double[][] live = new double[n][runs];
        double[] direct = new double[runs];
        DirectPythonRun directRun = DirectPythonRun.in(env);
        // warm-up
        for (int w = 0; w < 3; w++) {
            for (int s = 0; s < n; s++) {
                clients.get(s).exchange(post(clients.get(s)));
                clients.get(s).exchange(live(clients.get(s)));
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
                Bare c = clients.get(s);
                long t = System.nanoTime();
                String body = c.exchange(post(c));
                post[s][i] = (System.nanoTime() - t) / 1e6;
                if (!body.contains("\"status\":\"succeeded\"")) {
                    throw new IllegalStateException(names.get(s) + ": " + body);
                }
                Thread.sleep(20);
                t = System.nanoTime();
                c.exchange(live(c));
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

    static String post(Bare c) {
        return "POST /v1/jobs?wait=30 HTTP/1.1\r\nHost: " + c.host + "\r\nAuthorization: Bearer " + KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: " + BODY.length() + "\r\n\r\n" + BODY;
    }

    static String live(Bare c) {
        return "GET /q/health/live HTTP/1.1\r\nHost: " + c.host + "\r\n\r\n";
    }

    static double pct(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    static final class Bare {
        final String host;
        final Socket socket;
        final InputStream in;

        Bare(String host, int port) throws IOException {
            this.host = host + ":" + port;
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
        }

        String exchange(String request) throws IOException {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            String status = line();
            if (!status.startsWith("HTTP/1.1 2")) {
                throw new IllegalStateException("answered " + status);
            }
            long length = -1;
            boolean chunked = false;
            for (String header = line(); !header.isEmpty(); header = line()) {
                String lower = header.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).strip());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (chunked) {
                for (int size = Integer.parseInt(line().strip(), 16); size > 0; size = Integer.parseInt(line().strip(), 16)) {
                    body.write(in.readNBytes(size));
                    line();
                }
                line();
            } else {
                body.write(in.readNBytes((int) length));
            }
            return body.toString(StandardCharsets.UTF_8);
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new EOFException("connection closed");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }
}

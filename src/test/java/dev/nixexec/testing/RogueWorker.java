package dev.nixexec.testing;

import dev.nixexec.job.JobQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * A second, real worker process for crash tests: claims jobs with the service's own claim query,
 * marks the first as started, prints the ids, and then hangs until it is killed (SIGKILL), never
 * heartbeating, as a node does when its machine dies.
 */
public final class RogueWorker {

    private RogueWorker() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String password = args[2];
        String node = args[3];
        int count = Integer.parseInt(args[4]);
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            c.setAutoCommit(false);
            List<String> ids = new ArrayList<>();
            // the query numbers its parameters (?1..?6) for JPA; JDBC binds plain ?s in order of appearance;
            // the whole node is this rogue's (its share is its count, no contention window)
            Object[] values = {null, node, count, 1000, 3.0, count, 0.0};
            java.util.regex.Matcher numbered = java.util.regex.Pattern.compile("\\?(\\d)").matcher(JobQueue.CLAIM);
            List<Object> bound = new ArrayList<>();
            while (numbered.find()) {
                bound.add(values[Integer.parseInt(numbered.group(1))]);
            }
            try (PreparedStatement claim = c.prepareStatement(JobQueue.CLAIM.replaceAll("\\?(\\d)", "?"))) {
                for (int i = 0; i < bound.size(); i++) {
                    claim.setObject(i + 1, bound.get(i));
                }
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getString(1));
                    }
                }
            }
            c.commit();
            if (!ids.isEmpty()) {
                try (PreparedStatement start = c.prepareStatement(
                        "UPDATE jobs SET status = 'running', started_at = now() WHERE id = ?::uuid")) {
                    start.setString(1, ids.get(0));
                    start.executeUpdate();
                }
                c.commit();
            }
            System.out.println(String.join(" ", ids));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}

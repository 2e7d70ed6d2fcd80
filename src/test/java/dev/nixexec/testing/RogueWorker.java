package dev.nixexec.testing;

import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.JobTransitions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;

/**
 * A second, real worker process for crash tests: claims jobs with the service's own transitions,
 * starts the first, prints the ids, and then hangs until it is killed (SIGKILL), never
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
            // a lease of 3 s; the whole node is this rogue's (its share is its count, no contention window)
            JobTransitions transitions = new JobTransitions(new JobTransitions.Settings(Duration.ofSeconds(3), 1000,
                    Duration.ZERO, 0, count), Database.dataSource(c), ServiceJson.mapper(), ended -> { });
            List<ClaimedJob> claimed = transitions.claim(node, count);
            c.commit();
            if (!claimed.isEmpty()) {
                transitions.start(claimed.get(0).id(), claimed.get(0).attempt(), node, "/nix/store/rogue", "rogue", true, 0);
                c.commit();
            }
            System.out.println(String.join(" ", claimed.stream().map(j -> j.id().toString()).toList()));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}

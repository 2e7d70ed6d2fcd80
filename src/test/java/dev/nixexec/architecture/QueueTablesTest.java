package dev.nixexec.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Only the queue's layer (package {@code job} and its {@code jobs.sql}) touches the queue's
 * tables, so a job's row has one writer and one reader shape. A few statements elsewhere read a
 * job's status inside their own query; each is listed with why, and any other reference fails.
 */
class QueueTablesTest {

    private static final Pattern TOUCH = Pattern.compile(
            "\\b(FROM|JOIN|INTO|UPDATE|DELETE\\s+FROM|TRUNCATE)\\s+(jobs|job_events|queued_job_counts|nodes)\\b",
            Pattern.CASE_INSENSITIVE);

    /** Reads inside another package's own statement, which the job layer cannot join for it. */
    private static final Map<String, String> READS_ALLOWED = Map.of(
            "webhook/webhooks.sql", "a delivery is due once its job ended: claimed with SKIP LOCKED",
            "workspace/workspaces.sql", "a session workspace is idle only while none of its jobs runs",
            "worker/environment-demand.sql", "the environments recent jobs asked for, counted",
            "worker/node-environments.sql", "the fleet's nodes, for the environments each built ahead");

    @Test
    void onlyTheQueueLayerTouchesTheQueueTables() throws IOException {
        Path main = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "src", "main");
        TreeSet<String> found = new TreeSet<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : files.filter(Files::isRegularFile).filter(f -> !f.toString().contains("/dev/nixexec/job/"))
                    .toList()) {
                String name = file.getFileName().toString();
                if (!name.endsWith(".java") && !name.endsWith(".sql")) {
                    continue;
                }
                Matcher m = TOUCH.matcher(Files.readString(file));
                String where = main.relativize(file).toString().replaceFirst("^(java|resources)/dev/nixexec/", "");
                while (m.find()) {
                    boolean read = m.group(1).equalsIgnoreCase("from") || m.group(1).equalsIgnoreCase("join");
                    if (!read || !READS_ALLOWED.containsKey(where)) {
                        found.add(where + ": " + m.group());
                    }
                }
            }
        }
        assertEquals(List.of(), List.copyOf(found), "go through the job package's JobService, JobReads or jobs.sql");
    }
}

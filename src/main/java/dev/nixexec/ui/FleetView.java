package dev.nixexec.ui;

import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobStats;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The fleet page's data shaped for its template: the time windows, the three charts, node rows. */
final class FleetView {

    /** The windows offered, in hours, in the order shown; {@link #DEFAULT_WINDOW} when none is asked. */
    static final List<String> WINDOWS = List.of("1", "3", "6", "24");
    static final String DEFAULT_WINDOW = "3";
    /** The stacked bars' series, bottom up. */
    private static final List<String> STATUS_ORDER = List.of("succeeded", "failed", "timed_out", "cancelled", "error");
    private static final DateTimeFormatter SHORT_TIME = DateTimeFormatter.ofPattern("HH:mm 'UTC'");

    private FleetView() {
    }

    /** The window asked for in {@code ?hours=}, or the default when it is not one of {@link #WINDOWS}. */
    static String window(String hours) {
        return hours != null && WINDOWS.contains(hours) ? hours : DEFAULT_WINDOW;
    }

    static Duration duration(String window) {
        return Duration.ofHours(Integer.parseInt(window));
    }

    static List<Pages.Option> windowOptions(String window) {
        return WINDOWS.stream().map(h -> new Pages.Option(h, "last " + h + " h", h.equals(window))).toList();
    }

    /** Jobs finished per minute by status, queue depth, and p50 / p95 run time, over the window's buckets. */
    static List<SvgChart> charts(JobStats.Window recent) {
        List<JobStats.Bucket> buckets = recent.buckets();
        String firstLabel = SHORT_TIME.format(recent.start());
        String lastLabel = SHORT_TIME.format(recent.start().plus(recent.bucket().multipliedBy(buckets.size())));
        double minutes = recent.bucket().toSeconds() / 60.0;
        Map<String, Double[]> queueDepth = new LinkedHashMap<>();
        queueDepth.put("queued", buckets.stream().map(b -> (double) b.queued()).toArray(Double[]::new));
        Map<String, Double[]> durations = new LinkedHashMap<>();
        durations.put("p50", buckets.stream().map(JobStats.Bucket::p50Ms).toArray(Double[]::new));
        durations.put("p95", buckets.stream().map(JobStats.Bucket::p95Ms).toArray(Double[]::new));
        return List.of(
                SvgChart.stacked("Jobs finished per minute, by status", "jobs/min",
                        buckets.stream().map(JobStats.Bucket::finished).toList(), STATUS_ORDER, minutes, firstLabel, lastLabel),
                SvgChart.lines("Queue depth", "jobs", queueDepth, firstLabel, lastLabel),
                SvgChart.lines("Run time p50 / p95", "ms", durations, firstLabel, lastLabel));
    }

    /** A node whose heartbeat is older than {@code stale} is shown as stale (in red). */
    static Pages.NodeRow nodeRow(FleetNodes.NodeView n, OffsetDateTime now, Duration stale) {
        Duration age = Duration.between(n.heartbeatAt(), now);
        return new Pages.NodeRow(n.id(), n.role(), n.running(), n.concurrency(), UiFormat.time(n.heartbeatAt()),
                Math.max(0, age.toSeconds()) + " s ago", age.compareTo(stale) > 0);
    }
}

package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.FleetNodes;
import dev.nixexec.job.JobStats;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fleet page's shaping: windows, the three charts from JobStats' buckets, node staleness. */
class FleetViewTest {

    private static final OffsetDateTime START = OffsetDateTime.of(2026, 1, 31, 12, 0, 0, 0, ZoneOffset.UTC);

    @Test
    void anUnknownWindowIsTheDefault() {
        assertEquals("3", FleetView.window(null));
        assertEquals("3", FleetView.window("5"));
        assertEquals("3", FleetView.window("24h"));
        assertEquals("24", FleetView.window("24"));
        assertEquals(Duration.ofHours(6), FleetView.duration("6"));
        assertEquals(List.of(new Pages.Option("1", "last 1 h", false), new Pages.Option("3", "last 3 h", false),
                new Pages.Option("6", "last 6 h", true), new Pages.Option("24", "last 24 h", false)),
                FleetView.windowOptions("6"));
    }

    @Test
    void theChartsShowFinishedPerMinuteQueueDepthAndRunTimes() {
        // 3-minute buckets: 6 jobs succeeded in the first is 2 a minute
        List<JobStats.Bucket> buckets = List.of(
                new JobStats.Bucket(START, Map.of("succeeded", 6L), 4, 100.0, 250.0),
                new JobStats.Bucket(START.plusMinutes(3), Map.of(), 0, null, null));
        List<SvgChart> charts = FleetView.charts(new JobStats.Window(START, Duration.ofMinutes(3), buckets));
        assertEquals(List.of("Jobs finished per minute, by status", "Queue depth", "Run time p50 / p95"),
                charts.stream().map(SvgChart::title).toList());
        charts.forEach(c -> {
            assertEquals("12:00 UTC", c.firstLabel());
            assertEquals("12:06 UTC", c.lastLabel());
        });
        SvgChart finished = charts.get(0);
        assertEquals(List.of("succeeded", "failed", "timed_out", "cancelled", "error"), finished.legend());
        assertEquals(1, finished.bars().size());
        assertEquals("succeeded: 2 jobs/min", finished.bars().get(0).tip());
        SvgChart queue = charts.get(1);
        assertEquals(List.of("queued: 4 jobs", "queued: 0 jobs"),
                queue.lines().get(0).dots().stream().map(SvgChart.Dot::tip).toList());
        SvgChart runTime = charts.get(2);
        assertEquals(List.of("p50", "p95"), runTime.legend());
        assertEquals(List.of("p50: 100 ms", "p95: 250 ms"),
                runTime.lines().stream().map(l -> l.dots().get(0).tip()).toList(), "a bucket with no finished job is a gap");
    }

    @Test
    void aNodeIsStaleWhenItsHeartbeatIsOlderThanTheLimit() {
        OffsetDateTime now = START.plusMinutes(1);
        Duration stale = Duration.ofSeconds(30);
        Pages.NodeRow old = FleetView.nodeRow(new FleetNodes.NodeView("a", "all", 4, 1, START, START), now, stale);
        assertTrue(old.stale());
        assertEquals("60 s ago", old.age());
        assertEquals("2026-01-31 12:00:00 UTC", old.heartbeat());
        Pages.NodeRow fresh = FleetView.nodeRow(new FleetNodes.NodeView("b", "api", 2, 0, START, now.minusSeconds(30)),
                now, stale);
        assertFalse(fresh.stale(), "exactly at the limit is not stale yet");
        Pages.NodeRow ahead = FleetView.nodeRow(new FleetNodes.NodeView("c", "all", 2, 0, START, now.plusSeconds(2)),
                now, stale);
        assertEquals("0 s ago", ahead.age(), "a clock slightly ahead shows no negative age");
    }
}

package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SvgChartTest {

    @Test
    void axisTopIsARoundNumberAtLeastTheMaximum() {
        assertEquals(1, SvgChart.roundUp(0));
        assertEquals(5, SvgChart.roundUp(3));
        assertEquals(20, SvgChart.roundUp(12));
        assertEquals(100, SvgChart.roundUp(100));
        assertEquals(2000, SvgChart.roundUp(1001));
    }

    @Test
    void stackedBarsAreProportionalAndStacked() {
        SvgChart chart = SvgChart.stacked("t", "jobs", List.of(Map.of(), Map.of("succeeded", 2L, "failed", 1L)),
                List.of("succeeded", "failed"), 1, "a", "b");
        assertEquals(2, chart.bars().size());
        SvgChart.Bar ok = chart.bars().get(0);
        SvgChart.Bar failed = chart.bars().get(1);
        assertEquals(2 * failed.h(), ok.h(), 1e-9);
        assertEquals(ok.y(), failed.y() + failed.h(), 1e-9, "failed sits on top of succeeded");
        assertEquals("5", chart.ticks().get(2).label());
        assertEquals("succeeded: 2 jobs", ok.tip());
    }

    @Test
    void aGapSplitsALineAndALoneValueStillShows() {
        Map<String, Double[]> series = new LinkedHashMap<>();
        series.put("p50", new Double[] {1.0, 2.0, null, 4.0});
        SvgChart chart = SvgChart.lines("t", "ms", series, "a", "b");
        assertEquals(2, chart.lines().size());
        assertEquals(2, chart.lines().get(0).dots().size());
        assertEquals(1, chart.lines().get(1).dots().size());
    }
}

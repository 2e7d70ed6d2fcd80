package dev.nixexec.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small chart as SVG geometry, computed here and drawn by the fleet template: stacked bars or
 * lines over equal time buckets, a y axis scaled to a round maximum, and a legend. Colours come from
 * CSS classes ({@code c-<series>}), so the page needs no inline styles.
 */
public record SvgChart(String title, String unit, int width, int height, List<Bar> bars, List<Line> lines,
        List<Tick> ticks, List<String> legend, String firstLabel, String lastLabel) {

    static final int WIDTH = 600;
    static final int HEIGHT = 160;
    static final int LEFT = 48;
    static final int TOP = 8;
    static final int BOTTOM = 20;

    /** One bar segment; {@code tip} is its hover text. */
    public record Bar(double x, double y, double w, double h, String series, String tip) {
    }

    /** A run of values without gaps; each value is also a dot, so a lone value still shows. */
    public record Line(String series, List<Dot> dots) {

        public String points() {
            StringBuilder points = new StringBuilder();
            for (Dot d : dots) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", d.x(), d.y()));
            }
            return points.toString().strip();
        }
    }

    public record Dot(double x, double y, String tip) {
    }

    public record Tick(double y, String label) {

        public double labelY() {
            return y + 4;
        }
    }

    /** Stacked bars per bucket; series in {@code order}, values per bucket divided by {@code divisor}. */
    static SvgChart stacked(String title, String unit, List<Map<String, Long>> buckets, List<String> order,
            double divisor, String firstLabel, String lastLabel) {
        double max = 0;
        for (Map<String, Long> b : buckets) {
            max = Math.max(max, b.values().stream().mapToLong(Long::longValue).sum() / divisor);
        }
        double top = roundUp(max);
        double slot = plotWidth() / buckets.size();
        List<Bar> bars = new ArrayList<>();
        for (int i = 0; i < buckets.size(); i++) {
            double base = 0;
            for (String series : order) {
                double value = buckets.get(i).getOrDefault(series, 0L) / divisor;
                if (value > 0) {
                    double y0 = y(base, top);
                    double y1 = y(base + value, top);
                    bars.add(new Bar(LEFT + i * slot + 0.5, y1, Math.max(slot - 1, 1), y0 - y1, series,
                            series + ": " + number(value) + " " + unit));
                    base += value;
                }
            }
        }
        return new SvgChart(title, unit, WIDTH, HEIGHT, bars, List.of(), ticks(top), order, firstLabel, lastLabel);
    }

    /** One line per series; a null value leaves a gap. */
    static SvgChart lines(String title, String unit, Map<String, Double[]> series, String firstLabel, String lastLabel) {
        double max = 0;
        int n = 0;
        for (Double[] values : series.values()) {
            n = Math.max(n, values.length);
            for (Double v : values) {
                if (v != null) {
                    max = Math.max(max, v);
                }
            }
        }
        double top = roundUp(max);
        double slot = plotWidth() / Math.max(n, 1);
        List<Line> lines = new ArrayList<>();
        for (Map.Entry<String, Double[]> s : series.entrySet()) {
            List<Dot> run = new ArrayList<>();
            for (int i = 0; i <= s.getValue().length; i++) {
                Double v = i < s.getValue().length ? s.getValue()[i] : null;
                if (v != null) {
                    run.add(new Dot(LEFT + (i + 0.5) * slot, y(v, top), s.getKey() + ": " + number(v) + " " + unit));
                } else if (!run.isEmpty()) {
                    lines.add(new Line(s.getKey(), run));
                    run = new ArrayList<>();
                }
            }
        }
        return new SvgChart(title, unit, WIDTH, HEIGHT, List.of(), lines, ticks(top), List.copyOf(series.keySet()),
                firstLabel, lastLabel);
    }

    public int plotLeft() {
        return LEFT;
    }

    public int tickLabelX() {
        return LEFT - 4;
    }

    public int axisLabelY() {
        return HEIGHT - 4;
    }

    public int middleX() {
        return WIDTH / 2;
    }

    public boolean empty() {
        return bars.isEmpty() && lines.isEmpty();
    }

    private static double plotWidth() {
        return WIDTH - LEFT - 4;
    }

    private static double y(double value, double top) {
        return TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top);
    }

    private static List<Tick> ticks(double top) {
        return List.of(new Tick(y(0, top), "0"), new Tick(y(top / 2, top), number(top / 2)), new Tick(y(top, top), number(top)));
    }

    /** 1, 2 or 5 times a power of ten, at least {@code max} (and at least 1, so an empty chart has an axis). */
    static double roundUp(double max) {
        if (max <= 1) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= max) {
                return step * power;
            }
        }
        return 10 * power;
    }

    static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
    }
}

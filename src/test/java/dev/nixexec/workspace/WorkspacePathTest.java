package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkspacePathTest {

    @Test
    void relativeConfinedPathsAreAccepted() {
        for (String ok : List.of("a", "out/plot.png", "data/2026/x.csv", ".hidden", "a..b", "...", "naïve.txt")) {
            assertTrue(WorkspacePath.problem(ok).isEmpty(), ok);
        }
    }

    @Test
    void anythingThatCouldLeaveTheWorkspaceIsRefused() {
        for (String bad : List.of("", "/etc/passwd", "/proc/self/root/etc/shadow", "..", "../x", "a/../../x", "a/..",
                "./a", "a/./b", "a//b", "a/", "a\\..\\b", "a\0b", "a\nb", "x".repeat(256), "a/".repeat(600) + "a")) {
            assertTrue(WorkspacePath.problem(bad).isPresent(), bad);
        }
    }

    @Test
    void withinMeansTheRootOrBelowIt() {
        WorkspacePath out = new WorkspacePath("out");
        assertTrue(new WorkspacePath("out/a.png").within(out));
        assertTrue(new WorkspacePath("out").within(out));
        assertFalse(new WorkspacePath("outside/a.png").within(out));
        assertFalse(new WorkspacePath("output.txt").within(out));
    }

    @Test
    void contentTypesComeFromTheExtension() {
        assertEquals("image/png", ContentTypes.of("out/plot.PNG"));
        assertEquals("image/svg+xml", ContentTypes.of("chart.svg"));
        assertEquals("application/octet-stream", ContentTypes.of("dir.d/noext"));
        assertEquals("application/octet-stream", ContentTypes.of("archive.unknown"));
        assertEquals("out/a%20b%25.txt", Artifact.urlPath("out/a b%.txt"));
    }
}

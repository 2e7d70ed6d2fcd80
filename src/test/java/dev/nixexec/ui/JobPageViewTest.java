package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.job.JobDetail;
import dev.nixexec.job.JobView;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A job's page shaped from the service's detail: summary, env values by role, output notes, the trail's order. */
class JobPageViewTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final OffsetDateTime T = OffsetDateTime.of(2026, 1, 31, 12, 0, 0, 0, ZoneOffset.ofHours(1));
    private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-000000000001");

    @Test
    void aKilledJobShowsItsSignalErrorAndTruncatedOutput() {
        JobView job = new JobView(ID, "failed", "bash", List.of("jq"), Map.of("ticket", "T-1"), T, T, T, null, 9,
                false, "memory", 1200L, "head[... 10 bytes truncated ...]tail", null, 5000, 0, true, false,
                new JobView.EnvironmentView("/nix/store/x-env", null, true, 10L), new JobView.ErrorView("oom", "killed"),
                2, "n1", List.of(), null, null, List.of(), "utf-8", null, null, null);
        JobPageView page = JobPageView.of(new JobDetail(job, null, "echo", "", List.of("TOKEN"), Optional.empty(),
                30000, false, 3, null, true, RequestedLimits.NONE), null, JSON);
        Map<String, String> summary = fields(page.summary());
        assertEquals("local mode", summary.get("Submitted by"));
        assertEquals("2 of 3", summary.get("Attempt"));
        assertEquals("2026-01-31 11:00:00 UTC", summary.get("Created"), "times are shown in UTC");
        assertEquals("–", summary.get("Claimed"));
        assertEquals("–", summary.get("Exit code"));
        assertEquals("9", summary.get("Signal"));
        assertEquals("memory", summary.get("Limit hit"));
        assertEquals("none", summary.get("Network"));
        assertEquals("requested", summary.get("Cancel"));
        assertEquals("oom: killed", summary.get("Error"));
        assertEquals("{\"ticket\":\"T-1\"}", summary.get("Metadata"));
        assertEquals(Map.of("Store path", "/nix/store/x-env", "nixpkgs revision", "–", "Cache hit", "yes",
                "Build time", "10 ms"), fields(page.environment()));
        assertFalse(page.live());
        assertTrue(page.envValuesHidden());
        assertEquals(List.of(new Pages.EnvRow("TOKEN", null)), page.env());
        Pages.Output stdout = page.outputs().get(0);
        assertTrue(stdout.truncated());
        assertTrue(stdout.note().startsWith("truncated: 5000 bytes were printed"), stdout.note());
        assertEquals(new Pages.Output("stderr", "", false, "0 bytes"), page.outputs().get(1));
        assertNull(page.audit(), "no trail for a role that does not review");
    }

    @Test
    void aRunningJobIsLiveShowsEnvValuesToThoseWhoMaySeeThemAndItsTrailOldestFirst() {
        UUID key = UUID.randomUUID();
        JobView job = new JobView(ID, "running", "python", List.of(), Map.of(), T, T, null, null, null, false, null,
                null, null, null, 0, 0, false, false, null, null, 1, null, List.of(), null, null, List.of(), "utf-8", null,
                new KeyRef(key, "ci-bot", "member"), null);
        List<AuditLog.Entry> entries = List.of(
                new AuditLog.Entry(7, null, ID, null, "n1", "job_started", Map.of(), T.plusSeconds(1), null),
                new AuditLog.Entry(3, null, ID, key, null, "job_submitted", Map.of("size", 4), T,
                        new KeyRef(key, "ci-bot", "member")));
        JobPageView page = JobPageView.of(new JobDetail(job, key, "print(1)", null, List.of("A"),
                Optional.of(Map.of("A", "secret")), 1000, true, 1, T, false, RequestedLimits.NONE), entries, JSON);
        assertTrue(page.live());
        assertFalse(page.envValuesHidden());
        assertEquals(List.of(new Pages.EnvRow("A", "secret")), page.env());
        assertEquals("ci-bot (member) · id " + key, fields(page.summary()).get("Submitted by"));
        assertFalse(fields(page.summary()).containsKey("Signal"));
        assertFalse(fields(page.summary()).containsKey("Metadata"));
        assertEquals("–", fields(page.environment()).get("Store path"));
        assertEquals(List.of(
                new Pages.AuditRow("2026-01-31 11:00:00 UTC", "job_submitted", "–", "ci-bot (member)", "{\"size\":4}"),
                new Pages.AuditRow("2026-01-31 11:00:01 UTC", "job_started", "n1", "–", "{}")), page.audit());
    }

    private static Map<String, String> fields(List<Pages.Field> fields) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        fields.forEach(f -> map.put(f.name(), f.value()));
        return map;
    }
}

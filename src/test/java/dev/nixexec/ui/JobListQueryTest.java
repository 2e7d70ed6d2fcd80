package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobStatus;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The job list's filter form: what is kept of it, how it reads, and the paging links that carry it. */
class JobListQueryTest {

    @Test
    void blankFieldsAreDroppedAndValuesStripped() {
        JobListQuery q = JobListQuery.typed(" ", "python", " jq ", "", null, "\t", "2026-01-31T12:00");
        assertEquals(new JobListQuery(null, "python", "jq", null, null, null, "2026-01-31T12:00"), q);
    }

    @Test
    void theLinksCarryTheFilterInFormOrderEncodedAndTheCursorLast() {
        JobListQuery q = JobListQuery.typed("failed", null, "python3Packages.numpy", null, "node a&b", null, null);
        assertEquals("/ui/jobs?status=failed&package=python3Packages.numpy&node=node+a%26b", q.link(null));
        assertEquals("/ui/jobs?status=failed&package=python3Packages.numpy&node=node+a%26b&cursor=c%2B1%3D",
                q.link("c+1="));
        assertEquals("/ui/jobs", JobListQuery.typed(null, null, null, null, null, null, null).link(null));
        assertEquals("/ui/jobs?cursor=abc", JobListQuery.typed("", "", "", "", "", "", "").link("abc"));
    }

    @Test
    void theFilterReadsStatusKeyAndTimesAFormTimeBeingUtc() {
        UUID key = UUID.randomUUID();
        JobReads.Filter f = JobListQuery.typed("running", "bash", "jq", key.toString(), "n1",
                "2026-01-31T12:00", "2026-02-01T10:00:00+02:00").filter();
        assertEquals(new JobReads.Filter(JobStatus.RUNNING, "bash",
                OffsetDateTime.of(2026, 1, 31, 12, 0, 0, 0, ZoneOffset.UTC),
                OffsetDateTime.of(2026, 2, 1, 10, 0, 0, 0, ZoneOffset.ofHours(2)), "jq", key, "n1"), f);
        assertEquals(new JobReads.Filter(null, null, null, null, null, null, null),
                JobListQuery.typed(null, null, null, null, null, null, null).filter());
    }

    @Test
    void aFieldThatDoesNotReadIsNamedInTheMessage() {
        assertEquals("unknown status", refusal(JobListQuery.typed("sleeping", null, null, null, null, null, null)));
        assertEquals("from: a time like 2026-01-31T12:00 (UTC)",
                refusal(JobListQuery.typed(null, null, null, null, null, "yesterday", null)));
        assertEquals("to: a time like 2026-01-31T12:00 (UTC)",
                refusal(JobListQuery.typed(null, null, null, null, null, null, "31/01/2026")));
        assertTrue(refusal(JobListQuery.typed(null, null, null, "nx_secret_key", null, null, null))
                .startsWith("key: a key id"), "a secret typed as key id is refused as such");
    }

    @Test
    void theFormShowsWhatWasTyped() {
        Pages.Filter form = JobListQuery.typed("failed", "python", null, null, "n1", null, null).form();
        assertEquals(JobStatus.values().length, form.statuses().size());
        assertEquals("failed", form.statuses().stream().filter(Pages.Option::selected).findFirst().orElseThrow().value());
        assertEquals("python", form.languages().stream().filter(Pages.Option::selected).findFirst().orElseThrow().value());
        assertEquals("", form.packageName());
        assertEquals("n1", form.node());
        assertNull(JobListQuery.typed(null, null, null, null, null, null, null).form().statuses().stream()
                .filter(Pages.Option::selected).findFirst().orElse(null));
    }

    private static String refusal(JobListQuery q) {
        return assertThrows(IllegalArgumentException.class, q::filter).getMessage();
    }
}

package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.job.JobReads;
import dev.nixexec.job.JobStatus;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The job list's filter form: what is kept of it, how it reads, and the paging links that carry it. */
class JobListQueryTest {

    @Test
    void blankFieldsAreDroppedAndValuesStripped() {
        JobListQuery q = JobListQuery.typed(" ", "python", " jq ", "", null, "\t", "2026-01-31T12:00");
        assertEquals(new JobListQuery(null, "python", "jq", null, null, null, "2026-01-31T12:00", null, null, Map.of()), q);
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
        Pages.Filter form = JobListQuery.typed("failed", "python", null, null, "n1", null, null).form(Map.of());
        assertEquals(JobStatus.values().length, form.statuses().size());
        assertEquals("failed", form.statuses().stream().filter(Pages.Option::selected).findFirst().orElseThrow().value());
        assertEquals("python", form.languages().stream().filter(Pages.Option::selected).findFirst().orElseThrow().value());
        assertEquals("", form.packageName());
        assertEquals("n1", form.node());
        assertNull(JobListQuery.typed(null, null, null, null, null, null, null).form(Map.of()).statuses().stream()
                .filter(Pages.Option::selected).findFirst().orElse(null));
    }

    @Test
    void aRequestsParametersGiveSearchTenantAndMetadataFromLinksAndFromTheForm() {
        JobListQuery q = JobListQuery.of(Map.of("q", List.of(" needle "), "tenant", List.of("t-1"),
                "meta.team", List.of("red"), "meta.env", List.of(" "), "meta", List.of(" owner=ann  run=7 "),
                "status", List.of("")));
        assertEquals("needle", q.text());
        assertEquals("t-1", q.tenant());
        assertNull(q.status());
        assertEquals(Map.of("team", "red", "owner", "ann", "run", "7"), q.metadata(), "a blank meta.KEY is dropped");
        JobReads.Filter f = q.filter();
        assertEquals("needle", f.text());
        assertEquals(Map.of("team", "red", "owner", "ann", "run", "7"), f.metadata());
        // links carry the pairs as meta.KEY (sorted), the form shows them as typed pairs
        assertEquals("/ui/jobs?tenant=t-1&q=needle&meta.owner=ann&meta.run=7&meta.team=red&cursor=c", q.link("c"));
        assertEquals("/ui/jobs/export.csv?tenant=t-1&q=needle&meta.owner=ann&meta.run=7&meta.team=red", q.exportLink("csv"));
        assertEquals("owner=ann run=7 team=red", q.form(Map.of()).metadata());
        assertEquals("needle", q.form(Map.of()).text());
    }

    @Test
    void aSearchTermOrMetadataThatLooksLikeSqlOrHtmlIsKeptAsTextAndEncodedInLinks() {
        JobListQuery q = JobListQuery.of(Map.of("q", List.of("<script>alert(1)</script> ' or 1=1 --"),
                "meta.k'ey", List.of("v\"al'ue")));
        assertEquals("<script>alert(1)</script> ' or 1=1 --", q.filter().text());
        assertEquals(Map.of("k'ey", "v\"al'ue"), q.filter().metadata());
        assertEquals("/ui/jobs?q=%3Cscript%3Ealert%281%29%3C%2Fscript%3E+%27+or+1%3D1+--&meta.k%27ey=v%22al%27ue",
                q.link(null));
    }

    @Test
    void badMetadataAndOverlongSearchesAreNamed() {
        assertEquals("metadata: key=value pairs separated by spaces, like team=red",
                assertThrows(IllegalArgumentException.class, () -> JobListQuery.of(Map.of("meta", List.of("team")))).getMessage());
        assertEquals("metadata: key=value pairs separated by spaces, like team=red",
                assertThrows(IllegalArgumentException.class, () -> JobListQuery.of(Map.of("meta", List.of("=red")))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> JobListQuery.of(Map.of("q",
                List.of("x".repeat(JobListQuery.MAX_TEXT + 1))))).getMessage().startsWith("search: at most"));
        String eleven = String.join(" ", java.util.stream.IntStream.range(0, 11).mapToObj(i -> "k" + i + "=v").toList());
        assertEquals("metadata: at most 10 pairs", assertThrows(IllegalArgumentException.class,
                () -> JobListQuery.of(Map.of("meta", List.of(eleven)))).getMessage());
        assertEquals("tenant: a tenant id", assertThrows(IllegalArgumentException.class,
                () -> JobListQuery.of(Map.of("tenant", List.of("acme"))).tenantId()).getMessage());
    }

    @Test
    void anOperatorsFormListsTenantsWithThePickedOneSelected() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        Map<UUID, String> tenants = new java.util.LinkedHashMap<>();
        tenants.put(a, "acme");
        tenants.put(b, "beta");
        Pages.Filter form = JobListQuery.of(Map.of("tenant", List.of(b.toString()))).form(tenants);
        assertEquals(List.of(new Pages.Option(a.toString(), "acme", false), new Pages.Option(b.toString(), "beta", true)),
                form.tenants());
        assertEquals(List.of(), JobListQuery.of(Map.of()).form(Map.of()).tenants(), "no tenant choice for other roles");
    }

    private static String refusal(JobListQuery q) {
        return assertThrows(IllegalArgumentException.class, q::filter).getMessage();
    }
}

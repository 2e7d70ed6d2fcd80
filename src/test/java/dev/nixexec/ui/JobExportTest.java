package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.job.JobView;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Exports: RFC 4180 quoting, cells a spreadsheet would run as formulas defused, CSV and JSON alike. */
class JobExportTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void cellsThatAFormulaCouldStartWithGetAQuoteFirst() {
        assertEquals("\"'=HYPERLINK(\"\"http://evil\"\")\"", JobExport.cell("=HYPERLINK(\"http://evil\")"));
        assertEquals("'+1", JobExport.cell("+1"));
        assertEquals("'-1+2", JobExport.cell("-1+2"));
        assertEquals("'@SUM(A1)", JobExport.cell("@SUM(A1)"));
        assertEquals("'\tx", JobExport.cell("\tx"));
        assertEquals("\"'\rx\"", JobExport.cell("\rx"));
        assertEquals("plain", JobExport.cell("plain"));
        assertEquals("a=b", JobExport.cell("a=b"), "only a leading sign is a formula");
        assertEquals("", JobExport.cell(""));
    }

    @Test
    void cellsWithCommasQuotesOrLineBreaksAreQuotedWithQuotesDoubled() {
        assertEquals("\"a,b\"", JobExport.cell("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", JobExport.cell("say \"hi\""));
        assertEquals("\"two\nlines\"", JobExport.cell("two\nlines"));
    }

    private static final UUID KEY = UUID.fromString("8b0942ae-0000-4000-8000-000000000001");

    @Test
    void csvAndJsonCarryTheSameRowsTheCsvWithCrlfLines() throws Exception {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("team", "=cmd|' /C calc'!A0");
        UUID id = UUID.randomUUID();
        JobView job = new JobView(id, "succeeded", "bash", List.of("jq", "curl"), metadata,
                OffsetDateTime.of(2026, 1, 31, 12, 0, 0, 0, ZoneOffset.UTC), null, null, 0, null, false, null, 184_900L,
                "out", "", 3, 0, false, false, null, null, 1, "n1", List.of(), null, null, List.of(), "utf-8", null,
                new KeyRef(KEY, "=ci,bot", "member"), null);
        List<JobExport.Row> rows = List.of(new JobExport.Row(job, "@acme"));
        String csv = JobExport.csv(rows, json);
        String[] lines = csv.split("\r\n", -1);
        assertEquals(3, lines.length, csv);
        assertEquals("", lines[2], "the last line ends with CRLF too");
        assertEquals(String.join(",", JobExport.COLUMNS), lines[0]);
        assertEquals(id + ",'@acme," + KEY + ",\"'=ci,bot\",member,succeeded,bash,jq curl,2026-01-31T12:00Z,,,184900,3 min 4 s,0,,,n1,"
                + "\"{\"\"team\"\":\"\"=cmd|' /C calc'!A0\"\"}\"", lines[1]);
        JsonNode body = json.readTree(JobExport.json(rows, true, json));
        assertTrue(body.get("truncated").asBoolean());
        assertEquals(JobExport.MAX_ROWS, body.get("max_rows").asInt());
        JsonNode item = body.get("items").get(0);
        assertEquals(JobExport.COLUMNS, iterable(item.fieldNames()));
        assertEquals("=cmd|' /C calc'!A0", item.get("metadata").get("team").asText(), "JSON keeps values as they are");
        assertEquals("jq", item.get("packages").get(0).asText());
        assertEquals("3 min 4 s", item.get("duration").asText());
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> out = new java.util.ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }
}

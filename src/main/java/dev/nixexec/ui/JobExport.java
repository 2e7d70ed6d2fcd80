package dev.nixexec.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.job.JobView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A filtered job list written out as CSV (RFC 4180) or JSON, the same columns both ways: what the
 * list shows plus metadata, without code or output (an export is for spreadsheets and tickets, and
 * stays small). CSV is made safe for spreadsheets: a cell that starts with {@code = + - @}, a tab or
 * a carriage return gets a leading {@code '} so it is never read as a formula.
 */
final class JobExport {

    /** Rows an export holds at most; one more means the export was cut, which it says. */
    static final int MAX_ROWS = 1000;

    static final List<String> COLUMNS = List.of("id", "tenant", "key_id", "key_name", "key_role", "status", "language", "packages", "created_at",
            "started_at", "finished_at", "duration_ms", "duration", "exit_code", "signal", "error", "node", "metadata");

    /** A job of the export with the name of its tenant. */
    record Row(JobView job, String tenant) {
    }

    private JobExport() {
    }

    static String csv(List<Row> rows, ObjectMapper json) {
        StringBuilder out = new StringBuilder();
        line(out, COLUMNS);
        for (Row row : rows) {
            line(out, values(row, json).values().stream().map(v -> v == null ? "" : v.toString()).toList());
        }
        return out.toString();
    }

    static String json(List<Row> rows, boolean truncated, ObjectMapper json) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> item = values(row, json);
            item.put("metadata", row.job().metadata());
            item.put("packages", row.job().packages());
            items.add(item);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("truncated", truncated);
        body.put("max_rows", MAX_ROWS);
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One CSV cell: formula-safe, then quoted when it holds a comma, quote or line break. */
    static String cell(String value) {
        String safe = !value.isEmpty() && "=+-@\t\r".indexOf(value.charAt(0)) >= 0 ? "'" + value : value;
        if (safe.indexOf(',') < 0 && safe.indexOf('"') < 0 && safe.indexOf('\n') < 0 && safe.indexOf('\r') < 0) {
            return safe;
        }
        return '"' + safe.replace("\"", "\"\"") + '"';
    }

    private static void line(StringBuilder out, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            out.append(i == 0 ? "" : ",").append(cell(cells.get(i)));
        }
        out.append("\r\n");
    }

    private static Map<String, Object> values(Row row, ObjectMapper json) {
        JobView j = row.job();
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", j.id().toString());
        v.put("tenant", row.tenant());
        v.put("key_id", j.key() == null ? null : j.key().id().toString());
        v.put("key_name", j.key() == null ? null : j.key().name());
        v.put("key_role", j.key() == null ? null : j.key().role());
        v.put("status", j.status());
        v.put("language", j.language());
        v.put("packages", String.join(" ", j.packages()));
        v.put("created_at", text(j.createdAt()));
        v.put("started_at", text(j.startedAt()));
        v.put("finished_at", text(j.finishedAt()));
        v.put("duration_ms", j.durationMs());
        v.put("duration", j.durationMs() == null ? null : UiFormat.duration(j.durationMs()));
        v.put("exit_code", j.exitCode());
        v.put("signal", j.signal());
        v.put("error", j.error() == null ? null : j.error().code());
        v.put("node", j.nodeId());
        v.put("metadata", JsonColumns.write(json, j.metadata()));
        return v;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}

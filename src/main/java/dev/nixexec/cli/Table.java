package dev.nixexec.cli;

import java.io.PrintStream;
import java.util.List;

/** Rows in aligned columns, the first row a header; cells are one line each, control characters escaped. */
final class Table {

    private Table() {
    }

    static void print(PrintStream out, List<List<String>> rows) {
        int columns = rows.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], cell(row.get(c)).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String cell = cell(row.get(c));
                line.append(cell);
                if (c < columns - 1) {
                    line.append(" ".repeat(widths[c] - cell.length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }

    private static String cell(String value) {
        return value == null || value.isEmpty() || value.equals("null") ? "-" : Printable.line(value);
    }
}

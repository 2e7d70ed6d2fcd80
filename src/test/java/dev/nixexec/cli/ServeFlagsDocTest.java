package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/configuration.md's flag table and docs/cli.md's exit codes are the command's own. */
class ServeFlagsDocTest {

    private static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", "."));

    @Test
    void theFlagTableListsEveryFlagWithItsYamlKey() throws IOException {
        List<String> documented = rows(REPO.resolve("docs/configuration.md"), "## Command-line flags").stream()
                .map(cells -> cells.get(0) + " | " + cells.get(1)).toList();
        List<String> expected = new ArrayList<>(ServeFlag.ALL.stream()
                .map(f -> "`" + f.flag() + " " + f.label() + "` | " + (f.yamlKey() == null ? "—" : "`" + f.yamlKey() + "`"))
                .toList());
        expected.add("`-DSETTING=VALUE` | —");
        assertEquals(expected, documented);
    }

    @Test
    void theExitCodeTableIsTheCommandsOwn() throws IOException {
        List<String> documented = rows(REPO.resolve("docs/cli.md"), "## Exit codes").stream()
                .map(cells -> cells.get(0) + " " + cells.get(1)).toList();
        assertEquals(Stream.of(Exit.values()).map(e -> e.code + " " + e.meaning).toList(), documented);
    }

    /** The cells of the first table after {@code heading}, without its header and rule. */
    private static List<List<String>> rows(Path file, String heading) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int at = lines.indexOf(heading);
        List<List<String>> rows = new ArrayList<>();
        boolean inTable = false;
        for (String line : lines.subList(at + 1, lines.size())) {
            if (line.startsWith("|")) {
                inTable = true;
                List<String> cells = Stream.of(line.substring(1, line.length() - 1).split(" \\| ", -1)).map(String::strip).toList();
                rows.add(cells);
            } else if (inTable) {
                break;
            }
        }
        return rows.subList(2, rows.size());
    }
}

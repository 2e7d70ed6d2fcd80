package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists exactly the settings of {@link NixExecConfig}, each with its
 * environment variable, YAML key, default and bounds, so the reference cannot drift from the code.
 */
class ConfigurationDocTest {

    static final Path DOC = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "docs/configuration.md");
    static final Pattern ROW = Pattern.compile("^\\| `(nixexec\\.[a-z0-9.-]+)` \\|(.*)$", Pattern.MULTILINE);

    @Test
    void everySettingIsDocumentedWithItsNamesAndDefault() throws IOException {
        Map<String, List<String>> rows = rows();
        List<String> problems = new ArrayList<>();
        for (SettingsCatalog.Setting setting : SettingsCatalog.nixexec()) {
            List<String> cells = rows.remove(setting.property());
            if (cells == null) {
                problems.add("missing row: " + expectedRow(setting));
                continue;
            }
            if (cells.size() < 4) {
                problems.add(setting.property() + ": a row needs env | YAML | default | meaning: " + cells);
                continue;
            }
            String env = "`" + envName(setting.property()) + "`";
            String yaml = setting.property().equals("nixexec.config") ? "—" : "`" + yamlKey(setting.property()) + "`";
            if (!cells.get(0).equals(env) || !cells.get(1).equals(yaml)) {
                problems.add(setting.property() + ": env/YAML cells should be " + env + " | " + yaml + ", are " + cells);
            }
            if (setting.nonZero() && !cells.get(3).contains("more than 0")) {
                problems.add(setting.property() + ": the meaning should say \"more than 0\": " + cells.get(3));
            }
            setting.allowed().stream().filter(v -> !cells.get(3).contains("`" + v + "`"))
                    .forEach(v -> problems.add(setting.property() + ": the meaning should name `" + v + "`: " + cells.get(3)));
            setting.defaultValue().ifPresent(d -> {
                if (!cells.get(2).equals("`" + d + "`")) {
                    problems.add(setting.property() + ": default should be `" + d + "`, is " + cells.get(2));
                }
            });
        }
        rows.keySet().forEach(name -> problems.add("documented but not a setting: " + name));
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void namesFollowSmallRyeRules() {
        assertEquals("NIXEXEC_SANDBOX_MAX_OUTPUT_BYTES", envName("nixexec.sandbox.max-output-bytes"));
        assertEquals("sandbox.max_output_bytes", yamlKey("nixexec.sandbox.max-output-bytes"));
    }

    static String envName(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT);
    }

    static String yamlKey(String property) {
        return property.substring("nixexec.".length()).replace('-', '_');
    }

    static String expectedRow(SettingsCatalog.Setting s) {
        return "| `" + s.property() + "` | `" + envName(s.property()) + "` | `" + yamlKey(s.property()) + "` | "
                + s.defaultValue().map(d -> "`" + d + "`").orElse("…") + " | … |";
    }

    private static Map<String, List<String>> rows() throws IOException {
        Map<String, List<String>> rows = new TreeMap<>();
        Matcher m = ROW.matcher(Files.readString(DOC));
        while (m.find()) {
            List<String> cells = Arrays.stream(m.group(2).split("\\|")).map(String::strip).toList();
            rows.put(m.group(1), cells);
        }
        return rows;
    }
}

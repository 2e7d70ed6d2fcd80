package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/configuration.md lists exactly the settings of {@link NixExecConfig}, each with its
 * environment variable, YAML key, default and bounds, so the reference cannot drift from the code;
 * likewise its NixOS section and nixos/module.nix, and its YAML example and the module's rendering.
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

    /** The NixOS section lists every option nixos/module.nix declares, with its default, and no other. */
    @Test
    void nixosOptionsAreDocumentedWithTheirDefaults() throws IOException {
        Map<String, Optional<String>> declared = moduleOptions(Files.readString(MODULE));
        assertTrue(declared.keySet().containsAll(List.of("enable", "role", "database.name", "database.passwordFile",
                "settings", "settings.sandbox.workspace_path", "settings.executor.cache_dir", "settings.executor.temp_dir")),
                "the parser should find the module's options, found " + declared.keySet());
        List<String> problems = new ArrayList<>();
        String section = section(Files.readString(DOC), "## NixOS module options");
        Matcher m = Pattern.compile("^\\| (`[^|]+) \\| ([^|]+) \\|", Pattern.MULTILINE).matcher(section);
        while (m.find()) {
            List<String> names = Arrays.stream(m.group(1).split(" / ")).map(n -> n.strip().replace("`", "")).toList();
            List<String> defaults = Arrays.stream(m.group(2).split(" / ")).map(String::strip).toList();
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                if (!declared.containsKey(name)) {
                    problems.add("documented but not declared in nixos/module.nix: " + name);
                    continue;
                }
                Optional<String> literal = declared.remove(name).filter(ConfigurationDocTest::isLiteral);
                String cell = defaults.size() == names.size() ? defaults.get(i) : m.group(2).strip();
                if (literal.isPresent() && !cell.equals("`" + literal.get() + "`")) {
                    problems.add(name + ": default should be `" + literal.get() + "`, is " + cell);
                }
            }
        }
        declared.keySet().forEach(name -> problems.add("declared in nixos/module.nix but not documented: " + name));
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** The example of the YAML file is the module's rendering of the sample, as text and as a document. */
    @Test
    void yamlExampleIsTheModuleRendering() throws IOException {
        String section = section(Files.readString(DOC), "## The YAML file");
        String rendered = Files.readString(ModuleRenderingTest.EXPECTED).strip();
        assertEquals(rendered, block(section, "json"));
        Yaml yaml = new Yaml();
        assertEquals((Object) yaml.load(rendered), yaml.load(block(section, "yaml")));
    }

    @Test
    void moduleParserReadsNamesNestingAndDefaults() {
        String nix = """
                let opt = x: x; in
                {
                  options.services.nix-exec = {
                    enable = mkEnableOption "x";
                    port = mkOption {
                      type = types.port;
                      default = 8080;
                      description = ''
                        a { brace } in a string
                      '';
                    };
                    db = {
                      url = mkOption { type = types.str; default = "u"; };
                    };
                    settings = mkOption {
                      default = { };
                      type = types.submodule {
                        options = {
                          sandbox = section {
                            paths = opt (types.nullOr (types.listOf types.str)) null
                              "described on the next line";
                            timeout = opt types.str "30s" "d";
                          };
                        };
                      };
                    };
                  };
                  config = { x = mkOption { }; };
                }
                """;
        Map<String, Optional<String>> expected = new TreeMap<>(Map.of("enable", Optional.of("false"),
                "port", Optional.of("8080"), "db.url", Optional.of("\"u\""), "settings", Optional.of("{ }"),
                "settings.sandbox.paths", Optional.of("null"), "settings.sandbox.timeout", Optional.of("\"30s\"")));
        assertEquals(expected, new TreeMap<>(moduleOptions(nix)));
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

    static final Path MODULE = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "nixos/module.nix");
    private static final Pattern OPTION = Pattern.compile("^(\\w+) = (mkOption|mkEnableOption|opt)\\b(.*)$");
    private static final Pattern GROUP = Pattern.compile("^([\\w.-]+) = (section )?\\{$");
    private static final Pattern DEFAULT = Pattern.compile("^default = (.*);$");
    private static final Pattern INLINE_DEFAULT = Pattern.compile("\\bdefault = ([^;]+);");

    /**
     * The options under {@code options.services.nix-exec} of a module written like nixos/module.nix
     * (one attribute per line): {@code name = mkOption {…}}, {@code mkEnableOption}, and the
     * module's {@code opt TYPE DEFAULT DESCRIPTION} inside {@code settings}' sections, each with the
     * text of its default. Nesting follows the lines that end in {@code {} and start with {@code }}.
     */
    static Map<String, Optional<String>> moduleOptions(String nix) {
        Map<String, Optional<String>> options = new LinkedHashMap<>();
        List<String> lines = nix.lines().map(String::strip).toList();
        int i = lines.indexOf("options.services.nix-exec = {");
        assertTrue(i >= 0, "no 'options.services.nix-exec = {' line");
        Deque<String> path = new ArrayDeque<>();
        Deque<String> declaring = new ArrayDeque<>();
        path.push("");
        declaring.push("");
        boolean inString = false;
        for (i++; i < lines.size() && !path.isEmpty(); i++) {
            String line = lines.get(i).replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"");
            if (inString || line.startsWith("#")) {
                inString ^= line.contains("''");
                continue;
            }
            inString = line.split("''", -1).length % 2 == 0;
            String prefix = String.join(".", path.reversed().stream().filter(p -> !p.isEmpty()).toList());
            String qualified = (prefix.isEmpty() ? "" : prefix + ".");
            Matcher option = OPTION.matcher(line);
            Matcher group = GROUP.matcher(line);
            Matcher dflt = DEFAULT.matcher(lines.get(i));
            if (option.matches()) {
                String name = qualified + option.group(1);
                options.put(name, switch (option.group(2)) {
                    case "mkEnableOption" -> Optional.of("false");
                    case "opt" -> Optional.of(optDefault(lines.get(i).substring(lines.get(i).indexOf(" opt ") + 5)));
                    default -> Optional.of(INLINE_DEFAULT.matcher(lines.get(i))).filter(Matcher::find).map(d -> d.group(1));
                });
                if (line.endsWith("{")) {
                    path.push(option.group(1));
                    declaring.push(name);
                }
            } else if (dflt.matches() && options.containsKey(declaring.peek()) && !declaring.peek().isEmpty()
                    && prefix.equals(declaring.peek())) {
                options.put(declaring.peek(), Optional.of(dflt.group(1)));
            } else if (group.matches() && !group.group(1).equals("options")) {
                path.push(group.group(1));
                declaring.push("");
            } else if (line.endsWith("{")) {
                path.push("");
                declaring.push("");
            } else if (line.startsWith("}")) {
                path.pop();
                declaring.pop();
            }
        }
        return options;
    }

    /** The default of {@code opt TYPE DEFAULT DESCRIPTION}: the type is one word or one (…) group. */
    private static String optDefault(String arguments) {
        int at = 0;
        if (arguments.startsWith("(")) {
            for (int depth = 0; ; at++) {
                depth += arguments.charAt(at) == '(' ? 1 : arguments.charAt(at) == ')' ? -1 : 0;
                if (depth == 0) {
                    break;
                }
            }
            at++;
        } else {
            at = arguments.indexOf(' ');
        }
        String rest = arguments.substring(at).strip();
        Matcher value = Pattern.compile("^(\"(\\\\.|[^\"\\\\])*\"|\\[ \\]|\\{ \\}|[\\w.-]+)").matcher(rest);
        assertTrue(value.find(), "no default in: opt " + arguments);
        return value.group(1);
    }

    /** A default written as a value (string, number, boolean, null, empty list or set), not an expression. */
    private static boolean isLiteral(String nix) {
        return nix.matches("\"[^\"$]*\"|-?\\d+|true|false|null|\\[ \\]");
    }

    private static String section(String doc, String heading) {
        int start = doc.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, "no section " + heading);
        int end = doc.indexOf("\n## ", start + heading.length() + 2);
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    private static String block(String section, String language) {
        Matcher m = Pattern.compile("```" + language + "\n(.*?)\n```", Pattern.DOTALL).matcher(section);
        assertTrue(m.find(), "no ```" + language + " block");
        return m.group(1).strip();
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

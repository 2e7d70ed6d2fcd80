package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * The AgentSkills skill for agents that drive the command line ({@code docs/skills/nix-exec/SKILL.md})
 * is true to this build: its front matter is what the format asks for, every command line in its
 * examples parses as this command's, and its exit codes are the command's.
 */
class SkillDocTest {

    private static final Path SKILL = Path.of("docs/skills/nix-exec/SKILL.md");

    @Test
    void theFrontMatterNamesTheSkillAndSaysWhenToUseIt() throws IOException {
        String text = Files.readString(SKILL);
        assertTrue(text.startsWith("---\n"), "front matter first");
        int end = text.indexOf("\n---\n", 4);
        Map<String, Object> front = new Yaml().load(text.substring(4, end));
        assertEquals("nix-exec", front.get("name"), "the name is the skill's directory");
        assertTrue(String.valueOf(front.get("name")).matches("[a-z0-9]+(-[a-z0-9]+)*"), "lowercase and hyphens");
        String description = String.valueOf(front.get("description"));
        assertTrue(description.length() > 50 && description.length() <= 1024, description);
    }

    @Test
    void everyExampleParsesAsThisBuildsCommandLine() throws IOException {
        List<String> examples = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(SKILL)) {
            if (line.startsWith("```")) {
                code = !code;
                continue;
            }
            int at = line.indexOf("nix-exec ");
            if (code && at >= 0 && (at == 0 || line.substring(0, at).endsWith("| "))) {
                examples.add(line.substring(at));
            }
        }
        assertTrue(examples.size() >= 10, "the skill shows run, create, exec, enter, status, destroy: " + examples);
        for (String example : examples) {
            List<String> words = words(example);
            try {
                CommandLine.ParseResult parsed = NixExecCommand.commandLine().parseArgs(words.subList(1, words.size())
                        .toArray(String[]::new));
                assertTrue(parsed.hasSubcommand(), example);
            } catch (CommandLine.ParameterException e) {
                fail(example + ": " + e.getMessage());
            }
        }
        for (String command : List.of("run", "create", "exec", "enter", "status", "destroy")) {
            assertTrue(examples.stream().anyMatch(e -> e.startsWith("nix-exec " + command + " ")), command);
        }
    }

    @Test
    void theExitCodesAreTheCommands() throws IOException {
        List<Integer> documented = new ArrayList<>();
        Matcher row = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(Files.readString(SKILL));
        while (row.find()) {
            documented.add(Integer.parseInt(row.group(1)));
        }
        assertEquals(Arrays.stream(Exit.values()).map(e -> e.code).toList(), documented);
    }

    /** A shell line's words: single and double quotes kept together, as sh reads these examples. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == ' ') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}

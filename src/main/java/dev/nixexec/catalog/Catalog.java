package dev.nixexec.catalog;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.nix.PackageName;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The catalog of {@code GET /v1/catalog}: AI coding agents and tools, each a nixpkgs attribute a
 * session or profile can name. nixo's list ({@code catalog.json} beside this class) unless the
 * operator names a file of their own ({@code nixexec.catalog.file}, JSON or YAML of the same
 * shape), read and checked once at start: a bad file stops the start, naming what is wrong.
 */
@Startup
@ApplicationScoped
public class Catalog {

    /** The file's shape: {@code {agents: [...], tools: [...]}}. */
    @Schema(name = "CatalogContents")
    public record Contents(List<CatalogEntry> agents, List<CatalogEntry> tools) {

        public Contents {
            agents = agents == null ? List.of() : List.copyOf(agents);
            tools = tools == null ? List.of() : List.copyOf(tools);
        }
    }

    /** Agents by category (those without one under {@code other}), and the tools. */
    @Schema(name = "CatalogGrouped")
    public record Grouped(Map<String, List<CatalogEntry>> agentCategories, List<CatalogEntry> tools) {
    }

    private final Contents contents;
    /** Each entry's name to its attribute, agents before tools. */
    private final Map<String, String> attributes;

    public Catalog(NixExecConfig config, ObjectMapper json) {
        this.contents = config.catalog().file().map(file -> read(file, json)).orElseGet(() -> builtIn(json));
        Map<String, String> byName = new java.util.LinkedHashMap<>();
        for (CatalogEntry entry : contents.tools()) {
            byName.put(entry.name(), entry.attribute());
        }
        for (CatalogEntry entry : contents.agents()) {
            byName.put(entry.name(), entry.attribute());
        }
        this.attributes = Map.copyOf(byName);
    }

    /**
     * Packages as nixo named them: a catalog name stands for its attribute ({@code amp} is
     * {@code amp-cli}, {@code aider} {@code aider-chat}); every other name is left as given.
     */
    public List<String> resolve(List<String> packages) {
        if (packages == null) {
            return null;
        }
        return packages.stream().map(name -> attributes.getOrDefault(name, name)).toList();
    }

    /** The entries whose name, description or category contains {@code filter} (any case); all for none. */
    public Contents list(String filter) {
        return new Contents(matching(contents.agents(), filter), matching(contents.tools(), filter));
    }

    public Grouped grouped(String filter) {
        Contents matched = list(filter);
        Map<String, List<CatalogEntry>> categories = matched.agents().stream().collect(Collectors.groupingBy(
                a -> a.category() == null ? "other" : a.category(), TreeMap::new, Collectors.toList()));
        return new Grouped(categories, matched.tools());
    }

    private static List<CatalogEntry> matching(List<CatalogEntry> entries, String filter) {
        if (filter == null || filter.isBlank()) {
            return entries;
        }
        String wanted = filter.strip().toLowerCase(Locale.ROOT);
        return entries.stream().filter(e -> contains(e.name(), wanted) || contains(e.description(), wanted)
                || contains(e.category(), wanted)).toList();
    }

    private static boolean contains(String text, String wanted) {
        return text != null && text.toLowerCase(Locale.ROOT).contains(wanted);
    }

    private static Contents builtIn(ObjectMapper json) {
        try (InputStream in = Catalog.class.getResourceAsStream("catalog.json")) {
            return checked(strict(json).readValue(in, Contents.class), "the built-in catalog");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Contents read(Path file, ObjectMapper json) {
        Object document;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            document = new Yaml(new SafeConstructor(new LoaderOptions())).load(reader);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("nixexec.catalog.file " + file + " cannot be read as JSON or YAML: "
                    + e.getMessage(), e);
        }
        try {
            return checked(strict(json).convertValue(document, Contents.class), "nixexec.catalog.file " + file);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("nixexec.catalog.file " + file + " is not a catalog {agents: [...], "
                    + "tools: [...]} of {name, attribute, description, category?}: " + e.getMessage(), e);
        }
    }

    /** A misspelt key in an operator's file is an error, not a field quietly left out. */
    private static ObjectMapper strict(ObjectMapper json) {
        return json.copy().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    }

    private static Contents checked(Contents contents, String source) {
        List<String> problems = new ArrayList<>();
        List<CatalogEntry> all = new ArrayList<>(contents.agents());
        all.addAll(contents.tools());
        for (CatalogEntry e : all) {
            if (e == null || e.name() == null || e.name().isBlank() || e.description() == null) {
                problems.add("every entry needs a name and a description: " + e);
                continue;
            }
            try {
                PackageName.parse(e.attribute());
            } catch (IllegalArgumentException bad) {
                problems.add(e.name() + ": attribute " + e.attribute() + ": " + bad.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException(source + ": " + String.join("; ", problems));
        }
        return contents;
    }
}

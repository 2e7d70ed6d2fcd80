package dev.nixexec.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The packages stack as docs/architecture.md draws them, bottom up: a package uses only the ones
 * listed before it, so each can be read and tested from those below.
 */
class LayerTest {

    /** Bottom up, as in docs/architecture.md's "Parts" table. */
    static final List<String> LAYERS = List.of("config", "database", "refusal", "logging", "audit", "nix", "sandbox", "tenant",
            "execution", "workspace", "limits", "job", "catalog", "profile", "session", "attach", "worker", "api", "mcp", "webhook", "cli",
            "ui");

    @Test
    void aPackageUsesOnlyThePackagesBelowIt() {
        TreeSet<String> upward = new TreeSet<>();
        for (JavaClass origin : ProductionClasses.ALL) {
            int from = layer(origin);
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                int to = layer(dependency.getTargetClass());
                if (from >= 0 && to > from) {
                    upward.add(packageOf(origin) + " -> " + packageOf(dependency.getTargetClass()) + " ("
                            + origin.getSimpleName() + " uses " + dependency.getTargetClass().getSimpleName() + ")");
                }
            }
        }
        assertEquals(List.of(), List.copyOf(upward));
    }

    @Test
    void everyPackageHasItsPlace() {
        TreeSet<String> unplaced = new TreeSet<>();
        for (JavaClass c : ProductionClasses.ALL) {
            String name = packageOf(c);
            if (name != null && !LAYERS.contains(name)) {
                unplaced.add(name);
            }
        }
        assertEquals(List.of(), List.copyOf(unplaced), "add new packages to LAYERS and docs/architecture.md");
    }

    @Test
    void theDocsDrawTheSameOrder() throws IOException {
        Path doc = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "docs", "architecture.md");
        List<String> drawn = Files.readAllLines(doc).stream().dropWhile(line -> !line.startsWith("| package |"))
                .takeWhile(line -> line.startsWith("|")).filter(line -> line.startsWith("| `"))
                .map(line -> line.substring(3, line.indexOf('`', 3))).toList();
        assertEquals(LAYERS, drawn, "docs/architecture.md's Parts table, bottom up");
    }

    private static int layer(JavaClass c) {
        String name = packageOf(c);
        return name == null ? -1 : LAYERS.indexOf(name);
    }

    /** The capability package under dev.nixexec, or null outside it. */
    private static String packageOf(JavaClass c) {
        String name = c.getPackageName();
        if (!name.startsWith("dev.nixexec.")) {
            return null;
        }
        String rest = name.substring("dev.nixexec.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}

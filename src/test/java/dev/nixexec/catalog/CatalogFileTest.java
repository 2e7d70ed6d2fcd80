package dev.nixexec.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.ServiceJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An operator's catalog file ({@code nixexec.catalog.file}): JSON or YAML, read whole or refused naming what is wrong. */
class CatalogFileTest {

    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void aYamlFileIsRead() throws IOException {
        Catalog.Contents contents = Catalog.read(file("catalog.yaml", """
                agents:
                  - {name: our-agent, attribute: our-agent, description: The in-house agent, category: internal}
                tools:
                  - name: rg
                    attribute: ripgrep
                    description: search
                """), ServiceJson.mapper());
        assertEquals(List.of(new CatalogEntry("our-agent", "our-agent", "The in-house agent", "internal")),
                contents.agents());
        assertEquals(List.of(new CatalogEntry("rg", "ripgrep", "search", null)), contents.tools());
    }

    @Test
    void aJsonFileIsRead() throws IOException {
        Catalog.Contents contents = Catalog.read(file("catalog.json",
                "{\"tools\": [{\"name\": \"jq\", \"attribute\": \"jq\", \"description\": \"JSON\"}]}"), ServiceJson.mapper());
        assertEquals(List.of(), contents.agents());
        assertEquals(1, contents.tools().size());
    }

    @Test
    void anAttributeThatIsNoNixpkgsNameIsRefused() throws IOException {
        Path bad = file("bad.yaml", "tools:\n  - {name: x, attribute: \"$(rm -rf /)\", description: no}\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Catalog.read(bad, ServiceJson.mapper()));
        assertTrue(e.getMessage().contains("x: attribute $(rm -rf /)"), e.getMessage());
    }

    @Test
    void anUnknownKeyOrAMissingDescriptionIsRefused() throws IOException {
        Path typo = file("typo.yaml", "tools:\n  - {name: jq, atribute: jq, description: JSON}\n");
        assertThrows(IllegalStateException.class, () -> Catalog.read(typo, ServiceJson.mapper()));
        Path bare = file("bare.yaml", "agents:\n  - {name: a, attribute: a}\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Catalog.read(bare, ServiceJson.mapper()));
        assertTrue(e.getMessage().contains("every entry needs a name and a description"), e.getMessage());
        Path notYaml = file("broken.yaml", "agents: [\n");
        assertThrows(IllegalStateException.class, () -> Catalog.read(notYaml, ServiceJson.mapper()));
    }
}

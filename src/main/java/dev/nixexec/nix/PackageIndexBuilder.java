package dev.nixexec.nix;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Lists the packages of one nixpkgs pin with {@code nix eval} of the fixed {@code nix/package-index.nix}
 * (top-level attributes and the languages' package sets, with version and description), written
 * by nix to a file and read back in batches. The request it reads holds only the pin's locked URL,
 * the system and the set names.
 */
@ApplicationScoped
class PackageIndexBuilder {

    /** Names the request file for nix/package-index.nix. */
    static final String REQUEST_VARIABLE = "NIXEXEC_INDEX_REQUEST";
    static final int BATCH = 1000;

    private final NixExecConfig config;
    private final NixCommand nix;
    private final StatePaths paths;
    private final ObjectMapper json;
    private final String expression = load();

    PackageIndexBuilder(NixExecConfig config, NixCommand nix, StatePaths paths, ObjectMapper json) {
        this.config = config;
        this.nix = nix;
        this.paths = paths;
        this.json = json;
    }

    /** The packages nix listed, in a file of the cache until closed. */
    final class Listing implements AutoCloseable {
        private final Path dir;
        private final Path file;

        private Listing(Path dir, Path file) {
            this.dir = dir;
            this.file = file;
        }

        /** Hands the packages to {@code batches}, at most {@link #BATCH} at a time. */
        void forEach(Consumer<List<PackageIndexEntry>> batches) {
            try {
                read(file, batches);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the package list", e);
            }
        }

        @Override
        public void close() {
            NixInvocation.deleteTree(dir);
        }
    }

    /** Lists the pin's packages; the caller reads and closes the listing. */
    Listing list(NixpkgsPin pin) throws EnvironmentException {
        Path dir = null;
        try {
            dir = Files.createTempDirectory(paths.cacheDir(), "package-index-");
            Path file = dir.resolve("package-index.nix");
            Files.writeString(file, expression);
            Path request = dir.resolve("request.json");
            List<String> sets = Arrays.stream(Language.values()).flatMap(l -> l.packageSet().stream()).distinct().toList();
            json.writeValue(request.toFile(), Map.of("nixpkgs", pin.lockedUrl(), "system", config.executor().system(),
                    "package_sets", sets));
            Path out = dir.resolve("packages.json");
            List<String> argv = NixpkgsPins.append(nix.nix("eval"), "--impure", "--file", file.toString(),
                    "--write-to", out.toString());
            NixInvocation.Outcome outcome = NixInvocation.run(argv, Map.of(REQUEST_VARIABLE, request.toString()), dir,
                    config.packageIndex().buildTimeout());
            if (outcome.timedOut()) {
                throw new EnvironmentException("index_timeout", "listing nixpkgs took longer than "
                        + config.packageIndex().buildTimeout().toSeconds() + "s");
            }
            if (outcome.exitCode() != 0 || !Files.exists(out)) {
                throw new EnvironmentException("index_failed", "listing nixpkgs failed: "
                        + NixpkgsPins.lastLines(outcome.stderrTail().replace(dir.toString(), "<index>"), 10));
            }
            Listing listing = new Listing(dir, out);
            dir = null;
            return listing;
        } catch (IOException e) {
            throw EnvironmentException.hostStorage("cannot list nixpkgs", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EnvironmentException("index_failed", "interrupted while listing nixpkgs");
        } finally {
            NixInvocation.deleteTree(dir);
        }
    }

    /** The JSON array nix wrote, streamed: the index of a real nixpkgs is tens of megabytes. */
    void read(Path file, Consumer<List<PackageIndexEntry>> batches) throws IOException {
        try (InputStream in = Files.newInputStream(file); JsonParser parser = json.getFactory().createParser(in)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw new IOException("the package list is not a JSON array");
            }
            List<PackageIndexEntry> batch = new ArrayList<>(BATCH);
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                JsonNode node = json.readTree(parser);
                String set = node.path("set").asText("");
                String attribute = node.path("attribute").asText();
                batch.add(new PackageIndexEntry(attribute, set, set.isEmpty() ? attribute
                        : attribute.substring(set.length() + 1), node.path("version").asText(""),
                        node.path("description").asText("")));
                if (batch.size() == BATCH) {
                    batches.accept(List.copyOf(batch));
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                batches.accept(List.copyOf(batch));
            }
        }
    }

    private static String load() {
        try (InputStream in = PackageIndexBuilder.class.getClassLoader().getResourceAsStream("nix/package-index.nix")) {
            if (in == null) {
                throw new IllegalStateException("missing resource nix/package-index.nix");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

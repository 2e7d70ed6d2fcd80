package dev.nixexec.nix;

import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Resolves the configured nixpkgs URL to a locked input once and on a schedule, never per job. The
 * last pin is kept on disk so a restart without network still builds against the same revision.
 */
@ApplicationScoped
public class NixpkgsPins {

    private static final Logger LOG = Logger.getLogger(NixpkgsPins.class);
    private static final Duration RESOLVE_TIMEOUT = Duration.ofMinutes(5);

    private final NixExecConfig config;
    private final NixCommand nix;
    private final StatePaths paths;
    private final ObjectMapper json;
    private final AtomicReference<NixpkgsPin> current = new AtomicReference<>();

    public NixpkgsPins(NixExecConfig config, NixCommand nix, StatePaths paths, ObjectMapper json) {
        this.config = config;
        this.nix = nix;
        this.paths = paths;
        this.json = json;
    }

    /** The pin every build uses; resolved on first use if the start-up resolution did not happen. */
    public NixpkgsPin current() throws EnvironmentException {
        NixpkgsPin pin = current.get();
        if (pin != null) {
            return pin;
        }
        synchronized (this) {
            if (current.get() == null) {
                current.set(resolveOrRestore());
            }
            return current.get();
        }
    }

    /** The pin, if it has been resolved (or restored) already; never resolves. */
    public Optional<NixpkgsPin> known() {
        return Optional.ofNullable(current.get());
    }

    @Scheduled(every = "${nixexec.executor.nixpkgs-refresh:6h}", delayed = "${nixexec.executor.nixpkgs-refresh:6h}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        try {
            NixpkgsPin pin = resolve();
            NixpkgsPin previous = current.getAndSet(pin);
            if (previous == null || !previous.narHash().equals(pin.narHash())) {
                LOG.infof("nixpkgs pinned to %s", pin.revision());
            }
        } catch (EnvironmentException e) {
            LOG.warnf("nixpkgs refresh failed, keeping the current pin: %s", e.getMessage());
        }
    }

    private NixpkgsPin resolveOrRestore() throws EnvironmentException {
        try {
            NixpkgsPin pin = resolve();
            LOG.infof("nixpkgs %s pinned to %s", pin.configuredUrl(), pin.revision());
            return pin;
        } catch (EnvironmentException e) {
            Optional<NixpkgsPin> saved = restore();
            if (saved.isPresent()) {
                LOG.warnf("cannot resolve nixpkgs (%s); using the saved pin %s", e.getMessage(), saved.get().revision());
                return saved.get();
            }
            throw e;
        }
    }

    private NixpkgsPin resolve() throws EnvironmentException {
        String url = config.executor().nixpkgsUrl();
        try {
            NixInvocation.Outcome outcome = NixInvocation.run(
                    append(nix.nix("flake", "metadata", "--json"), url), paths.stateDir(), RESOLVE_TIMEOUT);
            if (!outcome.succeeded()) {
                throw new EnvironmentException("nixpkgs_unavailable",
                        "cannot resolve nixpkgs " + url + ": " + lastLines(outcome.stderrTail(), 5));
            }
            JsonNode metadata = json.readTree(outcome.stdout());
            String lockedUrl = metadata.path("url").asText(null);
            String narHash = metadata.path("locked").path("narHash").asText(null);
            if (lockedUrl == null || narHash == null) {
                throw new EnvironmentException("nixpkgs_unavailable", "nix flake metadata gave no locked URL for " + url);
            }
            NixpkgsPin pin = new NixpkgsPin(url, lockedUrl, metadata.path("revision").asText(narHash), narHash);
            save(pin);
            return pin;
        } catch (IOException e) {
            throw new EnvironmentException("nixpkgs_unavailable", "cannot resolve nixpkgs " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EnvironmentException("nixpkgs_unavailable", "interrupted while resolving nixpkgs");
        }
    }

    private Path pinFile() {
        return paths.cacheDir().resolve("nixpkgs-pin.json");
    }

    private void save(NixpkgsPin pin) throws IOException {
        Path tmp = Files.createTempFile(paths.cacheDir(), "pin", ".tmp");
        json.writeValue(tmp.toFile(), pin);
        Files.move(tmp, pinFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private Optional<NixpkgsPin> restore() {
        try {
            if (!Files.exists(pinFile())) {
                return Optional.empty();
            }
            NixpkgsPin pin = json.readValue(pinFile().toFile(), NixpkgsPin.class);
            return pin.configuredUrl().equals(config.executor().nixpkgsUrl()) ? Optional.of(pin) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static List<String> append(List<String> argv, String... more) {
        List<String> all = new ArrayList<>(argv);
        all.addAll(List.of(more));
        return all;
    }

    static String lastLines(String text, int count) {
        String[] lines = text.strip().split("\n");
        int from = Math.max(0, lines.length - count);
        return String.join("\n", Arrays.copyOfRange(lines, from, lines.length)).strip();
    }
}

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
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
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
 * A nixpkgs that needs a newer Nix than this host's (its {@code lib/minver.nix}: current nixpkgs
 * needs 2.18, Debian 12 has 2.8) would fail every evaluation with nixpkgs's own abort; it is said
 * once, in one line, whenever it is pinned (a worker pins at start), in readiness
 * ({@link #nixTooOld}), and as every job's error ({@code nix_too_old}).
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
    private volatile Optional<NixVersion> hostNix;

    public NixpkgsPins(NixExecConfig config, NixCommand nix, StatePaths paths, ObjectMapper json) {
        this.config = config;
        this.nix = nix;
        this.paths = paths;
        this.json = json;
    }

    /**
     * A worker pins nixpkgs at start, in the background, so that a nixpkgs this host's Nix cannot
     * evaluate is said at start and in readiness rather than by the first job.
     */
    void onStart(@Observes StartupEvent event) {
        if (!config.node().role().equals("api") && nix.available()) {
            Thread.ofVirtual().name("nixpkgs-pin").start(() -> {
                try {
                    current();
                } catch (EnvironmentException e) {
                    // said by the resolution itself; the first job that needs the pin tries again
                }
            });
        }
    }

    /**
     * The pin every build uses; resolved on first use if the start-up resolution did not happen.
     * Refused ({@code nix_too_old}) while this host's Nix is older than the pinned nixpkgs needs.
     */
    public NixpkgsPin current() throws EnvironmentException {
        NixpkgsPin pin = current.get();
        if (pin == null) {
            synchronized (this) {
                if (current.get() == null) {
                    current.set(resolveOrRestore());
                }
                pin = current.get();
            }
        }
        Optional<String> tooOld = tooOld(pin);
        if (tooOld.isPresent()) {
            throw new EnvironmentException("nix_too_old", tooOld.get());
        }
        return pin;
    }

    /** Why this host's Nix cannot evaluate the pinned nixpkgs, once it is pinned and if it cannot. */
    public Optional<String> nixTooOld() {
        return known().flatMap(this::tooOld);
    }

    /** The Nix the pinned nixpkgs needs and this host's, once pinned and when both are known. */
    public record NixVersions(NixVersion required, NixVersion host) {
    }

    public Optional<NixVersions> nixVersions() {
        return known().flatMap(pin -> NixVersion.parse(pin.requiredNix()))
                .flatMap(required -> hostNix().map(host -> new NixVersions(required, host)));
    }

    private Optional<String> tooOld(NixpkgsPin pin) {
        Optional<NixVersion> required = NixVersion.parse(pin.requiredNix());
        Optional<NixVersion> host = hostNix();
        if (pin.requiredNix() == null || required.isEmpty() || host.isEmpty() || host.get().compareTo(required.get()) >= 0) {
            return Optional.empty();
        }
        return Optional.of("nixpkgs " + pin.configuredUrl() + " needs Nix " + required.get() + " or newer, and this host's "
                + "nix is " + host.get() + ": install a newer Nix (README, Prerequisites) or set "
                + "nixexec.executor.nixpkgs-url to a nixpkgs it can evaluate");
    }

    /** This host's Nix version, asked once ({@code nix --version}); empty when it cannot be told. */
    private Optional<NixVersion> hostNix() {
        Optional<NixVersion> known = hostNix;
        if (known == null) {
            known = nix.nixPath().flatMap(path -> {
                try {
                    NixInvocation.Outcome outcome = NixInvocation.run(List.of(path.toString(), "--version"),
                            paths.stateDir(), Duration.ofSeconds(30));
                    return outcome.succeeded() ? NixVersion.parse(outcome.stdout()) : Optional.empty();
                } catch (IOException e) {
                    return Optional.empty();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            });
            hostNix = known;
        }
        return known;
    }

    /** Said at ERROR each time nixpkgs is pinned and this host cannot evaluate it: an operator must act. */
    private NixpkgsPin said(NixpkgsPin pin) {
        tooOld(pin).ifPresent(LOG::error);
        return pin;
    }

    /** The pin, if it has been resolved (or restored) already; never resolves. */
    public Optional<NixpkgsPin> known() {
        return Optional.ofNullable(current.get());
    }

    @Scheduled(every = "${nixexec.executor.nixpkgs-refresh:6h}", delayed = "${nixexec.executor.nixpkgs-refresh:6h}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            NixpkgsPin pin = resolve();
            NixpkgsPin previous = current.getAndSet(said(pin));
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
            return said(pin);
        } catch (EnvironmentException e) {
            Optional<NixpkgsPin> saved = restore();
            if (saved.isPresent()) {
                LOG.warnf("cannot resolve nixpkgs (%s); using the saved pin %s", e.getMessage(), saved.get().revision());
                return said(saved.get());
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
            NixpkgsPin pin = new NixpkgsPin(url, lockedUrl, metadata.path("revision").asText(narHash), narHash,
                    requiredNix(metadata.path("path").asText(null)));
            save(pin);
            return pin;
        } catch (IOException e) {
            throw new EnvironmentException("nixpkgs_unavailable", "cannot resolve nixpkgs " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EnvironmentException("nixpkgs_unavailable", "interrupted while resolving nixpkgs");
        }
    }

    /** What the source's {@code lib/minver.nix} says, as nixpkgs's own check reads it; null when it says nothing. */
    private static String requiredNix(String sourcePath) {
        if (sourcePath == null) {
            return null;
        }
        try {
            Path minver = Path.of(sourcePath, "lib", "minver.nix");
            return Files.isRegularFile(minver) ? NixVersion.ofMinver(Files.readString(minver)).map(NixVersion::text).orElse(null)
                    : null;
        } catch (IOException | java.nio.file.InvalidPathException e) {
            return null;
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

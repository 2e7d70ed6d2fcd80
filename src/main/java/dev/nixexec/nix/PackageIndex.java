package dev.nixexec.nix;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Package search over the pinned nixpkgs ({@code GET /v1/packages}, MCP {@code search_packages}):
 * one query of the index in PostgreSQL. The index of a pin is listed once, by the node that
 * claims it ({@link PackageIndexStore#claim}), in the background: at start once the pin is known
 * ({@code nixexec.package-index.at-start}), or on the first search that finds none; until it is
 * ready a search is refused as unavailable, with a time to try again.
 */
@ApplicationScoped
public class PackageIndex {

    private static final Logger LOG = Logger.getLogger(PackageIndex.class);
    /** A failed listing is tried again (by any node) after this long. */
    static final Duration RETRY_FAILED = Duration.ofHours(1);
    /** What a refused search is told to wait: listing the fixture takes a second, a real nixpkgs minutes. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(10);

    private final NixExecConfig config;
    private final NixpkgsPins pins;
    private final NixCommand nix;
    private final PackageIndexBuilder builder;
    private final PackageIndexStore store;
    private final String claimant;
    private final AtomicBoolean listing = new AtomicBoolean();
    /** The pin whose index this node has seen ready: from then on a search is one query. */
    private volatile String readyHash;
    private volatile String lastProblem;

    PackageIndex(NixExecConfig config, NixpkgsPins pins, NixCommand nix, PackageIndexBuilder builder,
            PackageIndexStore store) {
        this.config = config;
        this.pins = pins;
        this.nix = nix;
        this.builder = builder;
        this.store = store;
        this.claimant = config.node().id().orElse("node") + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    void onStart(@Observes StartupEvent event) {
        if (config.packageIndex().atStart() && nix.available()) {
            listInBackground();
        }
    }

    /** The best packages for the query, best first; refused as unavailable while the pin's index is not ready. */
    public List<PackageHit> search(PackageQuery query) {
        Optional<NixpkgsPin> pin = pins.known();
        if (pin.isEmpty()) {
            // an API node runs no nix: the workers' newest index is the fleet's
            Optional<String> newest = store.newestReady();
            if (newest.isPresent()) {
                return store.search(newest.get(), query.text(), query.packageSet(), query.limit());
            }
            listInBackground();
            throw unavailable("nixpkgs is not pinned on this node yet" + problem() + "; the package index is listed "
                    + "once it is");
        }
        String hash = pin.get().narHash();
        if (!hash.equals(readyHash)) {
            Optional<PackageIndexStore.State> state = store.state(hash);
            if (state.isEmpty() || !state.get().ready()) {
                listInBackground();
                throw unavailable(state.map(s -> s.status().equals("failed")
                        ? "listing nixpkgs " + pin.get().revision() + " failed (" + s.error() + "); it is tried again "
                                + "after " + RETRY_FAILED.toMinutes() + " minutes"
                        : "the package index of nixpkgs " + pin.get().revision() + " is being listed (since "
                                + s.startedAt() + ")").orElse("the package index of nixpkgs " + pin.get().revision()
                                + " is not listed yet" + problem()));
            }
            readyHash = hash;
        }
        return store.search(hash, query.text(), query.packageSet(), query.limit());
    }

    /**
     * Each language's interpreter version in the pinned nixpkgs, from its package index (no nix
     * process, one query); a language is left out while the index is not ready, or when it lists
     * no version.
     */
    public Map<Language, String> interpreterVersions() {
        Optional<String> hash = pins.known().map(NixpkgsPin::narHash).or(store::newestReady);
        if (hash.isEmpty()) {
            return Map.of();
        }
        if (!hash.get().equals(readyHash) && !store.state(hash.get()).map(PackageIndexStore.State::ready).orElse(false)) {
            return Map.of(); // listed at start or on the first search, not for this
        }
        Map<String, String> byAttribute = store.versions(hash.get(),
                Arrays.stream(Language.values()).map(Language::interpreter).toList());
        Map<Language, String> versions = new EnumMap<>(Language.class);
        for (Language language : Language.values()) {
            Optional.ofNullable(byAttribute.get(language.interpreter())).ifPresent(v -> versions.put(language, v));
        }
        return versions;
    }

    private String problem() {
        String last = lastProblem;
        return last == null ? "" : " (" + last + ")";
    }

    private static Refusal unavailable(String message) {
        return new Refusal(Refusal.Kind.UNAVAILABLE, message + "; try again shortly", RETRY_AFTER);
    }

    /** Lists the current pin's packages unless this node is at it already, or another node has them. */
    void listInBackground() {
        if (!listing.compareAndSet(false, true)) {
            return;
        }
        Thread.ofVirtual().name("package-index").start(() -> {
            try {
                list();
                lastProblem = null;
            } catch (EnvironmentException | RuntimeException e) {
                lastProblem = e.getMessage();
                LOG.warnf("package index: %s", e.getMessage());
            } finally {
                listing.set(false);
            }
        });
    }

    private void list() throws EnvironmentException {
        NixpkgsPin pin = pins.current();
        String hash = pin.narHash();
        Optional<PackageIndexStore.State> state = store.state(hash);
        if (state.isPresent() && state.get().ready()) {
            readyHash = hash;
            return;
        }
        Duration stale = config.packageIndex().buildTimeout().plusMinutes(5);
        if (!store.claim(hash, pin.revision(), claimant, stale, RETRY_FAILED)) {
            return; // another node lists it
        }
        long started = System.nanoTime();
        try (PackageIndexBuilder.Listing listed = builder.list(pin)) {
            QuarkusTransaction.requiringNew().timeout((int) stale.toSeconds()).run(() -> {
                listed.forEach(batch -> store.insert(hash, batch));
                if (!store.ready(hash, claimant)) {
                    throw new IllegalStateException("another node took the listing of " + pin.revision() + " over");
                }
            });
            readyHash = hash;
            LOG.infof("package index of nixpkgs %s listed in %d ms", pin.revision(),
                    (System.nanoTime() - started) / 1_000_000);
        } catch (EnvironmentException | RuntimeException e) {
            store.failed(hash, claimant, e.getMessage());
            throw e;
        }
    }
}

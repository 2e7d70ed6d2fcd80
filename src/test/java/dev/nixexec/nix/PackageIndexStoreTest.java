package dev.nixexec.nix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.Database;
import dev.nixexec.testing.DatabaseTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The package index on the real database: one node claims a pin (another only once the first
 * stopped or failed long enough ago), the entries turn visible with "ready", and a search is one
 * ranked query.
 */
@DatabaseTest
class PackageIndexStoreTest {

    private static final Duration STALE = Duration.ofMinutes(35);
    private static final Duration RETRY = Duration.ofHours(1);

    private Connection connection;
    private PackageIndexStore store;
    private final String pin = "sha256-" + UUID.randomUUID();

    @BeforeEach
    void setUp(Database database) {
        connection = database.connection();
        store = new PackageIndexStore(database.dataSource());
    }

    private static PackageIndexEntry top(String name, String version, String description) {
        return new PackageIndexEntry(name, "", name, version, description);
    }

    private static PackageIndexEntry python(String name, String description) {
        return new PackageIndexEntry("python3Packages." + name, "python3Packages", name, "1.0", description);
    }

    private void indexed() {
        assertTrue(store.claim(pin, "rev", "node-a", STALE, RETRY));
        store.insert(pin, List.of(
                top("jq", "1.7.1", "Lightweight and flexible command-line JSON processor"),
                top("jqp", "0.7", "A TUI playground to experiment with jq"),
                top("gojq", "0.12", "Pure Go implementation of jq"),
                top("jo", "1.9", "Small utility to create JSON objects; a jq companion"),
                top("fx", "35", "Terminal JSON viewer"),
                top("under_score", "1", "a name with an underscore"),
                top("underXscore", "1", "a name the pattern u_ would also match"),
                python("jq", "Python bindings for jq"),
                python("numpy", "Scientific tools for Python")));
        assertTrue(store.ready(pin, "node-a"));
    }

    private void age(String column, Duration by) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("UPDATE package_indexes SET " + column + " = "
                + column + " - make_interval(secs => ?) WHERE nar_hash = ?")) {
            s.setLong(1, by.toSeconds());
            s.setString(2, pin);
            s.executeUpdate();
        }
    }

    @Test
    void oneNodeClaimsAPin() {
        assertTrue(store.claim(pin, "rev", "node-a", STALE, RETRY));
        assertFalse(store.claim(pin, "rev", "node-b", STALE, RETRY), "node-a lists it; node-b waits");
        assertEquals("building", store.state(pin).orElseThrow().status());
        assertEquals("node-a", store.state(pin).orElseThrow().nodeId());
    }

    @Test
    void aClaimLeftTooLongIsTakenOverAndTheFirstNodeCannotFinishIt() throws SQLException {
        assertTrue(store.claim(pin, "rev", "node-a", STALE, RETRY));
        age("started_at", STALE.plusMinutes(1));
        assertTrue(store.claim(pin, "rev", "node-b", STALE, RETRY));
        assertFalse(store.ready(pin, "node-a"), "node-a no longer holds the listing");
        assertTrue(store.ready(pin, "node-b"));
    }

    @Test
    void aFailureIsShownAndTriedAgainOnlyLater() throws SQLException {
        assertTrue(store.claim(pin, "rev", "node-a", STALE, RETRY));
        store.failed(pin, "node-a", "listing nixpkgs failed: out of memory");
        PackageIndexStore.State state = store.state(pin).orElseThrow();
        assertEquals("failed", state.status());
        assertEquals("listing nixpkgs failed: out of memory", state.error());
        assertFalse(store.claim(pin, "rev", "node-b", STALE, RETRY));
        age("finished_at", RETRY.plusMinutes(1));
        assertTrue(store.claim(pin, "rev", "node-b", STALE, RETRY));
    }

    @Test
    void aReadyIndexIsNeverClaimedAgain() {
        indexed();
        assertFalse(store.claim(pin, "rev", "node-b", Duration.ZERO, Duration.ZERO));
        assertEquals(9, store.state(pin).orElseThrow().packages());
    }

    @Test
    void aNodeWithoutAPinSearchesTheIndexFinishedLast() throws SQLException {
        indexed();
        String older = "sha256-" + UUID.randomUUID();
        assertTrue(store.claim(older, "older", "node-b", STALE, RETRY));
        store.insert(older, List.of(top("jq", "1.6", "an older jq")));
        assertTrue(store.ready(older, "node-b"));
        try (PreparedStatement s = connection.prepareStatement(
                "UPDATE package_indexes SET finished_at = finished_at - interval '1 hour' WHERE nar_hash = ?")) {
            s.setString(1, older);
            s.executeUpdate();
        }
        String building = "sha256-" + UUID.randomUUID();
        assertTrue(store.claim(building, "newest", "node-c", STALE, RETRY));
        assertEquals(Optional.of(pin), store.newestReady(), "the newest ready index; one still listed does not count");
    }

    @Test
    void exactNamesComeFirstThenPrefixesThenSubstringsThenDescriptions() {
        indexed();
        assertEquals(List.of("jq", "python3Packages.jq", "jqp", "gojq", "jo"),
                store.search(pin, "JQ", Optional.empty(), 20).stream().map(PackageHit::attribute).toList());
        assertEquals(new PackageHit("jq", "1.7.1", "Lightweight and flexible command-line JSON processor"),
                store.search(pin, "jq", Optional.empty(), 1).get(0));
    }

    @Test
    void aLanguageRestrictsToItsPackageSetAndTopLevelIsASetOfItsOwn() {
        indexed();
        assertEquals(List.of("python3Packages.jq"), store.search(pin, "jq", Optional.of("python3Packages"), 20)
                .stream().map(PackageHit::attribute).toList());
        assertEquals(List.of("jq", "jqp", "gojq", "jo"), store.search(pin, "jq", Optional.of(""), 20)
                .stream().map(PackageHit::attribute).toList());
    }

    @Test
    void likeWildcardsInTheQueryAreLiteral() {
        indexed();
        assertEquals(List.of("under_score"), store.search(pin, "r_s", Optional.empty(), 20).stream()
                .map(PackageHit::attribute).toList());
        assertEquals(List.of(), store.search(pin, "%", Optional.empty(), 20));
    }

    @Test
    void anotherPinsIndexIsNotSearched() {
        indexed();
        assertEquals(List.of(), store.search("sha256-other", "jq", Optional.empty(), 20));
    }

    @Test
    void versionsAreOfTheAttributesAskedForWithABlankOneLeftOut() {
        indexed();
        store.insert(pin, List.of(top("unversioned", "", "no version"), top("jq", "0", "a duplicate is ignored")));
        assertEquals(Map.of("jq", "1.7.1", "python3Packages.numpy", "1.0"), store.versions(pin,
                List.of("jq", "python3Packages.numpy", "unversioned", "absent")));
    }
}

package dev.nixexec.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code webhook_hosts} entries: what is one, what each lists. */
class WebhookHostsTest {

    @Test
    void entriesAreHostsOrHostPorts() {
        for (String good : List.of("hooks.example.com", "hooks.example.com:8443", "127.0.0.1:8080", "[::1]:8080", "::1",
                "[fd00::1]", "Hooks.Example.COM.")) {
            assertEquals(Optional.empty(), WebhookHosts.problem(good), good);
        }
        for (String bad : List.of("http://hooks.example.com", "hooks.example.com/path", "host:0", "host:65536",
                "host:", "[::1", "[::1]x", "a b", "", "user@host", "*.example.com")) {
            assertTrue(WebhookHosts.problem(bad).isPresent(), bad);
        }
    }

    @Test
    void aBareEntryListsEveryPortAHostPortOnlyItsOwn() {
        WebhookHosts hosts = new WebhookHosts(List.of("Hooks.Example.com.", "api.example.com:8443", "[::1]:9000"));
        assertTrue(hosts.lists("hooks.example.com", 443));
        assertTrue(hosts.lists("HOOKS.example.com", 8080));
        assertTrue(hosts.lists("api.example.com", 8443));
        assertFalse(hosts.lists("api.example.com", 443));
        assertFalse(hosts.lists("evil.hooks.example.com", 443));
        assertTrue(hosts.lists("0:0:0:0:0:0:0:1", 9000));
        assertTrue(hosts.listsIpLiteral("::1", 9000));
        assertFalse(hosts.listsIpLiteral("hooks.example.com", 443), "a name is never an IP literal entry");
    }

    @Test
    void onlyStrictLiteralsAreIpLiterals() {
        assertTrue(WebhookHosts.ipLiteral("127.0.0.1").isPresent());
        assertTrue(WebhookHosts.ipLiteral("[::1]").isPresent());
        assertFalse(WebhookHosts.ipLiteral("127.1").isPresent());
        assertFalse(WebhookHosts.ipLiteral("999.0.0.1").isPresent());
        assertFalse(WebhookHosts.ipLiteral("localhost").isPresent());
    }
}

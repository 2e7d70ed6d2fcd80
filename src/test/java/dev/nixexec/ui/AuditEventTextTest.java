package dev.nixexec.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.audit.KeyRef;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Audit records worded for people: who, what, and the object linked. */
class AuditEventTextTest {

    private static final OffsetDateTime T = OffsetDateTime.of(2026, 1, 31, 11, 0, 0, 0, ZoneOffset.UTC);
    private static final UUID TENANT = UUID.fromString("00000000-0000-0000-0000-0000000000aa");
    private static final KeyRef ADMIN = new KeyRef(UUID.fromString("00000000-0000-0000-0000-000000000001"), "alice", "admin");
    private static final KeyRef BOT = new KeyRef(UUID.fromString("00000000-0000-0000-0000-000000000002"), "ci-bot", "member");

    private static AuditLog.Entry entry(String kind, KeyRef by, UUID job, Map<String, Object> detail) {
        return new AuditLog.Entry(1, TENANT, job, by == null ? null : by.id(), null, kind, detail, T, by);
    }

    @Test
    void keysAreNamedByNameAndRoleAndLinkToTheirJobs() {
        AuditEventText.Described made = AuditEventText.of(entry("key_created", ADMIN, null,
                Map.of("key_id", BOT.id().toString(), "role", "member", "name", "ci-bot")), Map.of(BOT.id(), BOT), "");
        assertEquals(new AuditEventText.Described("alice (admin)", "created a key", "ci-bot (member)",
                "/ui/jobs?key=" + BOT.id()), made);
        AuditEventText.Described revoked = AuditEventText.of(entry("key_revoked", ADMIN, null,
                Map.of("key_id", BOT.id().toString())), Map.of(BOT.id(), BOT), "?tenant=" + TENANT);
        assertEquals("ci-bot (member)", revoked.object());
        assertEquals("/ui/jobs?key=" + BOT.id() + "&tenant=" + TENANT, revoked.href(), "an operator's link keeps the tenant");
    }

    @Test
    void policiesSessionsShellsAndDeliveriesReadAsSentences() {
        Map<String, Object> policy = new LinkedHashMap<>();
        policy.put("before", Map.of("max_running", 2));
        policy.put("after", Map.of("max_running", 5, "network", "off"));
        assertEquals("changed the tenant's policy: max_running 2 → 5, network default → off",
                AuditEventText.of(entry("policy_changed", ADMIN, null, policy), Map.of(), "").what());

        UUID session = UUID.randomUUID();
        AuditEventText.Described created = AuditEventText.of(entry("session_created", BOT, null,
                Map.of("session_id", session.toString(), "name", "work", "packages", java.util.List.of("jq"))), Map.of(), "");
        assertEquals(new AuditEventText.Described("ci-bot (member)", "created a session with jq", "session work",
                "/ui/sessions/" + session), created);

        UUID recording = UUID.randomUUID();
        Map<String, Object> ended = new LinkedHashMap<>();
        ended.put("session_id", session.toString());
        ended.put("close_code", 1000);
        ended.put("reason", "exit 0");
        ended.put("bytes_in", 12);
        ended.put("bytes_out", 2048);
        ended.put("duration_ms", 65_000);
        ended.put("exit_code", 0);
        ended.put("recording_id", recording.toString());
        AuditEventText.Described shell = AuditEventText.of(entry("shell_ended", BOT, null, ended), Map.of(), "");
        assertEquals("closed a shell: exit 0 · 1 min 5 s · 12 B typed · 2.0 KiB shown", shell.what());
        assertEquals("/ui/shells/" + recording, shell.href());

        UUID job = UUID.randomUUID();
        AuditEventText.Described delivery = AuditEventText.of(entry("webhook_delivery", null, job,
                Map.of("host", "hooks.example", "port", 443, "attempt", 2, "outcome", "delivered", "status", 204)), Map.of(), "");
        assertEquals(new AuditEventText.Described("the service",
                "result callback, attempt 2, to hooks.example:443: delivered (HTTP 204)",
                "job " + job.toString().substring(0, 8), "/ui/jobs/" + job), delivery);
    }

    @Test
    void anUnknownKindIsDescribedByItsFields() {
        assertEquals("something new: size 4", AuditEventText.of(entry("something_new", null, null, Map.of("size", 4)),
                Map.of(), "").what());
    }
}

package dev.nixexec.ui;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.audit.KeyRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.UUID;

/**
 * An audit record as people read it: who acted (the key by name and role, or the service), what
 * they did in a sentence, and the object it was done to with a link to its page (a job, a session,
 * a shell's recording, a key's jobs). Kinds this does not know are described by their fields.
 */
final class AuditEventText {

    /** What a record says: {@code object} and {@code href} are null when it names no object. */
    record Described(String who, String what, String object, String href) {
    }

    private AuditEventText() {
    }

    /**
     * @param keys the keys a record names in its detail ({@code key_id}), by id
     * @param tenantSuffix {@code ?tenant=...} for an operator reading another tenant, else empty
     */
    static Described of(AuditLog.Entry e, Map<UUID, KeyRef> keys, String tenantSuffix) {
        Map<String, Object> d = e.detail();
        String who = e.key() != null ? e.key().label() : e.nodeId() != null ? "node " + e.nodeId() : "the service";
        String session = text(d.get("session_id"));
        String sessionLabel = "session " + (d.get("name") != null ? text(d.get("name")) : shortId(session));
        String sessionHref = session == null ? null : "/ui/sessions/" + session + tenantSuffix;
        KeyRef subject = keyOf(d, keys);
        String subjectHref = subject == null ? null : "/ui/jobs?key=" + subject.id() + and(tenantSuffix);
        return switch (e.kind()) {
            case "ui_signed_in" -> new Described(who, "signed in to the audit UI", null, null);
            case "tenant_created" -> new Described(who, "created the tenant " + text(d.get("name")), null, null);
            case "key_created" -> new Described(who, "created a key" + (d.get("expires_at") == null ? ""
                    : " expiring " + text(d.get("expires_at"))), label(subject), subjectHref);
            case "key_revoked" -> new Described(who, "revoked a key", label(subject), subjectHref);
            case "key_promoted" -> new Described(who, "made a key an operator key (it was " + text(d.get("from")) + ")",
                    label(subject), subjectHref);
            case "policy_changed" -> new Described(who, "changed the tenant's policy: " + changes(d), null, null);
            case "webhook_secret_set" -> new Described(who, Boolean.TRUE.equals(d.get("rotated"))
                    ? "rotated the tenant's webhook secret" : "made the tenant's webhook secret", null, null);
            case "session_created" -> new Described(who, "created a session" + packages(d), sessionLabel, sessionHref);
            case "session_destroyed" -> new Described(who, "destroyed a session" + cancelled(d), sessionLabel, sessionHref);
            case "session_expired" -> new Described(who, "ended an idle session" + cancelled(d), sessionLabel, sessionHref);
            case "shell_started" -> new Described(who, "opened a shell in a session", sessionLabel, sessionHref);
            case "shell_ended" -> new Described(who, shellEnded(d), "shell recording",
                    d.get("recording_id") == null ? sessionHref : "/ui/shells/" + text(d.get("recording_id")) + tenantSuffix);
            case AuditLog.WEBHOOK_DELIVERY -> new Described(who, "result callback, attempt "
                    + text(d.get("attempt")) + ", to " + text(d.get("host")) + ":" + text(d.get("port")) + ": "
                    + text(d.get("outcome")) + (d.get("status") == null ? "" : " (HTTP " + text(d.get("status")) + ")")
                    + (d.get("refused") == null ? "" : ": " + text(d.get("refused")))
                    + (d.get("exception") == null ? "" : ": " + text(d.get("exception"))),
                    e.jobId() == null ? null : "job " + shortId(e.jobId().toString()),
                    e.jobId() == null ? null : "/ui/jobs/" + e.jobId() + tenantSuffix);
            default -> new Described(who, e.kind().replace('_', ' ') + fields(d),
                    e.jobId() == null ? null : "job " + shortId(e.jobId().toString()),
                    e.jobId() == null ? null : "/ui/jobs/" + e.jobId() + tenantSuffix);
        };
    }

    /** The key a record is about ({@code key_id} in its detail), named when known. */
    static KeyRef keyOf(Map<String, Object> detail, Map<UUID, KeyRef> keys) {
        String id = text(detail.get("key_id"));
        if (id == null) {
            return null;
        }
        try {
            UUID key = UUID.fromString(id);
            return keys.getOrDefault(key, new KeyRef(key, text(detail.get("name")), text(detail.get("role"))));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String label(KeyRef key) {
        return key == null ? null : key.name() == null && key.role() == null ? "key " + shortId(key.id().toString())
                : key.label();
    }

    private static String shellEnded(Map<String, Object> d) {
        List<String> parts = new ArrayList<>();
        if (d.get("exit_code") != null) {
            parts.add("exit " + text(d.get("exit_code")));
        }
        if (d.get("duration_ms") instanceof Number ms) {
            parts.add(UiFormat.duration(ms.longValue()));
        }
        if (d.get("bytes_in") instanceof Number in) {
            parts.add(UiFormat.bytes(in.longValue()) + " typed");
        }
        if (d.get("bytes_out") instanceof Number out) {
            parts.add(UiFormat.bytes(out.longValue()) + " shown");
        }
        if (d.get("reason") != null && !d.get("reason").equals("exit " + text(d.get("exit_code")))) {
            parts.add(text(d.get("reason")));
        }
        return "closed a shell" + (parts.isEmpty() ? "" : ": " + String.join(" · ", parts));
    }

    @SuppressWarnings("unchecked")
    private static String changes(Map<String, Object> d) {
        Map<String, Object> before = d.get("before") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        Map<String, Object> after = d.get("after") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        List<String> changed = new ArrayList<>();
        TreeSet<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        for (String name : names) {
            Object was = before.get(name);
            Object now = after.get(name);
            if (!Objects.equals(was, now)) {
                changed.add(name + " " + (was == null ? "default" : text(was)) + " → " + (now == null ? "default" : text(now)));
            }
        }
        if (d.containsKey("granted_after")) {
            changed.add("the operator's grant");
        }
        return changed.isEmpty() ? "no field" : String.join(", ", changed);
    }

    private static String packages(Map<String, Object> d) {
        return d.get("packages") instanceof List<?> p && !p.isEmpty()
                ? " with " + String.join(" ", p.stream().map(AuditEventText::text).toList()) : "";
    }

    private static String cancelled(Map<String, Object> d) {
        return d.get("cancelled_jobs") instanceof Number n && n.longValue() > 0 ? " (" + n + " unfinished jobs cancelled)" : "";
    }

    private static String fields(Map<String, Object> d) {
        if (d.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        d.forEach((k, v) -> parts.add(k.replace('_', ' ') + " " + text(v)));
        return ": " + String.join(", ", parts);
    }

    private static String and(String tenantSuffix) {
        return tenantSuffix.isEmpty() ? "" : "&" + tenantSuffix.substring(1);
    }

    static String shortId(String id) {
        return id == null ? "–" : id.length() > 8 ? id.substring(0, 8) : id;
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}

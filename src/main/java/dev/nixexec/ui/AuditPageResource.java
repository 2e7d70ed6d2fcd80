package dev.nixexec.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * {@code /ui/audit}: the audit records that are not a job's (sign-ins, keys, tenants and policies,
 * sessions and shells) and the webhook deliveries (linked to their job), newest first, filtered by
 * kind; an operator sees every tenant's, with a tenant filter. The data of {@code GET /v1/audit},
 * through {@link AuditLog#outsideJobs}.
 */
@Path("/ui/audit")
public class AuditPageResource {

    private static final int PAGE_SIZE = 100;

    @CheckedTemplate(basePath = "AuditUi")
    static class Templates {
        static native TemplateInstance audit(Pages.User user, List<Pages.EventRow> rows, List<Pages.Option> kinds,
                List<Pages.Option> tenants, boolean operator, String nextPage, String error);
    }

    private final UiAccess access;
    private final AuditLog audit;
    private final TenantNames tenantNames;
    private final ObjectMapper json;

    public AuditPageResource(UiAccess access, AuditLog audit, TenantNames tenantNames, ObjectMapper json) {
        this.access = access;
        this.audit = audit;
        this.tenantNames = tenantNames;
        this.json = json;
    }

    /** For other roles than operator {@code tenant} is ignored: the page shows their tenant's records. */
    @GET
    @Produces(MediaType.TEXT_HTML)
    @RunOnVirtualThread
    public Response events(@CookieParam(UiAccess.SESSION_COOKIE) String token, @QueryParam("kind") String kind,
            @QueryParam("tenant") String tenant, @QueryParam("before") String before) {
        UiSessions.Session session = access.signedIn(token);
        Caller caller = session.caller();
        if (!caller.role().reviews()) {
            throw UiResponses.forbidden("the audit log needs an auditor, admin or operator key");
        }
        boolean operator = caller.role().operates();
        Map<UUID, String> tenants = operator ? tenantNames.all() : Map.of();
        String wantedKind = JobListQuery.blankToNull(kind);
        String wantedTenant = operator ? JobListQuery.blankToNull(tenant) : null;
        UUID tenantId = caller.tenantId();
        Long beforeId = null;
        String error = null;
        List<AuditLog.Entry> entries = List.of();
        try {
            if (wantedTenant != null) {
                tenantId = parse(wantedTenant, "tenant: a tenant id", UUID::fromString);
            }
            if (before != null && !before.isBlank()) {
                beforeId = parse(before.strip(), "before: not a cursor this page gave out", Long::parseLong);
            }
            entries = operator && wantedTenant == null
                    ? audit.outsideJobsEveryTenant(wantedKind, beforeId, PAGE_SIZE + 1)
                    : audit.outsideJobs(tenantId, wantedKind, beforeId, PAGE_SIZE + 1);
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
        }
        String next = null;
        if (entries.size() > PAGE_SIZE) {
            entries = entries.subList(0, PAGE_SIZE);
            next = link(wantedKind, wantedTenant, entries.get(PAGE_SIZE - 1).id());
        }
        String ownName = access.user(session).tenant();
        Map<UUID, dev.nixexec.audit.KeyRef> subjects = audit.keys(entries.stream()
                .map(e -> AuditEventText.keyOf(e.detail(), Map.of())).filter(java.util.Objects::nonNull)
                .map(dev.nixexec.audit.KeyRef::id).toList());
        List<Pages.EventRow> rows = entries.stream().map(e -> {
            AuditEventText.Described d = AuditEventText.of(e, subjects,
                    operator && e.tenantId() != null ? "?tenant=" + e.tenantId() : "");
            return new Pages.EventRow(UiFormat.time(e.at()), tenants.getOrDefault(e.tenantId(),
                    caller.tenantId().equals(e.tenantId()) ? ownName : String.valueOf(e.tenantId())),
                    e.kind(), d.who(), d.what(), d.object(), d.href(), JsonColumns.write(json, e.detail()));
        }).toList();
        List<String> kindNames = audit.kindsOutsideJobs(operator && wantedTenant == null ? null
                : error == null ? tenantId : caller.tenantId());
        List<Pages.Option> kinds = kindNames.stream().map(k -> new Pages.Option(k, k, k.equals(wantedKind))).toList();
        List<Pages.Option> tenantOptions = tenants.entrySet().stream().map(t -> new Pages.Option(t.getKey().toString(),
                t.getValue(), t.getKey().toString().equals(wantedTenant))).toList();
        return Response.status(error == null ? 200 : 400)
                .entity(Templates.audit(access.user(session), rows, kinds, tenantOptions, operator, next, error)).build();
    }

    @ServerExceptionMapper
    public Response webResponse(WebApplicationException e) {
        return e.getResponse();
    }

    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return UiResponses.refused(e);
    }

    private static <T> T parse(String value, String message, java.util.function.Function<String, T> reader) {
        try {
            return reader.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(message);
        }
    }

    private static String link(String kind, String tenant, long before) {
        StringBuilder q = new StringBuilder("/ui/audit?before=").append(before);
        if (kind != null) {
            q.append("&kind=").append(URLEncoder.encode(kind, StandardCharsets.UTF_8));
        }
        if (tenant != null) {
            q.append("&tenant=").append(URLEncoder.encode(tenant, StandardCharsets.UTF_8));
        }
        return q.toString();
    }
}

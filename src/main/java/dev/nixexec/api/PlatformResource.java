package dev.nixexec.api;

import dev.nixexec.audit.AuditLog;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.job.FleetNodes;
import dev.nixexec.nix.Language;
import dev.nixexec.nix.PackageIndex;
import dev.nixexec.tenant.Caller;
import dev.nixexec.worker.NodeEnvironments;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code /v1/languages}, {@code /v1/audit}, {@code /v1/nodes}. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Platform", description = "Languages, nodes and the audit log")
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
public class PlatformResource {

    private final AuditLog audit;
    private final FleetNodes fleet;
    private final CallerContext caller;
    private final NodeEnvironments nodeEnvironments;
    private final PackageIndex packageIndex;

    public PlatformResource(AuditLog audit, FleetNodes fleet, CallerContext caller, NodeEnvironments nodeEnvironments,
            PackageIndex packageIndex) {
        this.packageIndex = packageIndex;
        this.audit = audit;
        this.fleet = fleet;
        this.caller = caller;
        this.nodeEnvironments = nodeEnvironments;
    }

    /** A language; {@code version}: its interpreter's in the pinned nixpkgs (null until the package index is listed). */
    public record LanguageView(String language, String interpreter, String packageSet, String examplePackage,
            String version) {
    }

    @Operation(summary = "List languages", description = "Each language with its interpreter attribute, package set, example package and version in the pinned nixpkgs.")
    @GET
    @Path("languages")
    public List<LanguageView> languages() {
        caller.get();
        Map<Language, String> versions = packageIndex.interpreterVersions();
        return Arrays.stream(Language.values()).map(l -> new LanguageView(l.id(), l.interpreter(),
                l.packageSet().orElse(null), l.examplePackage(), versions.get(l))).toList();
    }

    public record AuditPage(List<AuditLog.Entry> items, String nextCursor) {
    }

    @Operation(summary = "Read the audit log", description = "Who did what and when (submissions, keys, sessions, shells), newest first, filtered by job and time; paged by `cursor`.")
    @GET
    @Path("audit")
    public AuditPage audit(@QueryParam("job_id") String jobId, @QueryParam("since") String since,
            @QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor, @QueryParam("tenant") String tenant) {
        Caller who = caller.get();
        if (!who.role().reviews()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "the audit log needs an auditor, admin or operator key");
        }
        UUID tenantId = caller.tenantOrOwn(tenant);
        int size = limit == null ? 100 : limit;
        if (size < 1 || size > 500) {
            throw new InvalidRequestException(List.of(new FieldError("limit", "must be 1 to 500")), false);
        }
        UUID job = jobId == null ? null : JobsResource.jobId(jobId);
        OffsetDateTime from = null;
        if (since != null) {
            try {
                from = OffsetDateTime.parse(since);
            } catch (RuntimeException e) {
                throw new InvalidRequestException(List.of(new FieldError("since", "an RFC 3339 time")), false);
            }
        }
        Long before = null;
        if (cursor != null) {
            try {
                before = Long.parseLong(cursor);
            } catch (NumberFormatException e) {
                throw new InvalidRequestException(List.of(new FieldError("cursor", "not a cursor this service gave out")), false);
            }
        }
        List<AuditLog.Entry> items = audit.list(tenantId, job, from, before, size + 1);
        String next = null;
        if (items.size() > size) {
            items = items.subList(0, size);
            next = Long.toString(items.get(size - 1).id());
        }
        return new AuditPage(items, next);
    }

    /** A node with its environments built ahead (the prebuild list, the most used; each building, built or failed). */
    public record NodeView(String id, String role, int concurrency, int running, OffsetDateTime startedAt,
            OffsetDateTime heartbeatAt, List<NodeEnvironments.Entry> environments) {
    }

    @Operation(summary = "List nodes", description = "The service's nodes with their role, heartbeat, running jobs and prepared environments.")
    @GET
    @Path("nodes")
    public List<NodeView> nodes() {
        if (!caller.get().role().operates()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "the node list needs an operator key");
        }
        Map<String, List<NodeEnvironments.Entry>> environments = nodeEnvironments.byNode();
        return fleet.nodes().stream().map(n -> new NodeView(n.id(), n.role(), n.concurrency(), n.running(),
                n.startedAt(), n.heartbeatAt(), environments.getOrDefault(n.id(), List.of()))).toList();
    }
}

package dev.nixexec.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.OneOf;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.nix.EnvironmentsAhead;
import dev.nixexec.nix.Language;
import dev.nixexec.session.EnvironmentBuild;
import dev.nixexec.session.SessionStatus;
import dev.nixexec.tenant.Role;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * Makes /q/openapi tell what the service does where the scan cannot see it (registered with
 * {@code mp.openapi.filter}): the problem responses every /v1 operation can give (they come from
 * exception mappers and HTTP filters, not from method signatures), 204 for deletes, the closed sets
 * of values as enums taken from the service's own enums, the required fields of request bodies and of
 * answers (with the answers' fields that may be null), and concrete schemas for the fields Jackson reads
 * as a JsonNode (a duration given as text or seconds, an object).
 */
public final class OpenApiFilter implements OASFilter {

    static final String PROBLEM_JSON = "application/problem+json";
    private static final String SCHEMAS = "#/components/schemas/";
    /** Prefixes of the paths whose changing operations can meet a conflict (a busy or taken name, an idempotency key reused). */
    private static final List<String> CONFLICTING = List.of("/v1/jobs", "/v1/sessions", "/v1/workspaces", "/v1/profiles", "/v1/admin");
    private static final Set<PathItem.HttpMethod> CHANGING = Set.of(PathItem.HttpMethod.POST, PathItem.HttpMethod.PUT,
            PathItem.HttpMethod.PATCH, PathItem.HttpMethod.DELETE);
    private static final Map<String, String> TITLES = Map.of("400", "Bad Request", "401", "Unauthorized", "403", "Forbidden",
            "404", "Not Found", "409", "Conflict", "413", "Payload Too Large", "415", "Unsupported Media Type",
            "429", "Too Many Requests", "503", "Service Unavailable");

    /** The fields of a JobView, written in every answer (the others have {@code @JsonInclude(NON_NULL)}). */
    private static final List<String> JOB = fieldsOf(dev.nixexec.job.JobView.class);
    /** Of those, the ones that may be null (a job not started, not ended, never given an environment, ...). */
    private static final List<String> JOB_NULLABLE = List.of("started_at", "finished_at", "exit_code", "signal",
            "limit_hit", "duration_ms", "stdout", "stderr", "environment", "error", "node_id", "usage", "key");

    /** Answer schemas: every field Jackson writes, each required, and those that may be null. */
    private record Answer(List<String> required, List<String> nullable) {
    }

    private static final Map<String, Answer> ANSWERS = Map.ofEntries(
            Map.entry("JobView", new Answer(JOB, JOB_NULLABLE)),
            Map.entry("JobListRow", new Answer(listRow(JOB), listRow(JOB_NULLABLE))),
            Map.entry("JobList", new Answer(List.of("items", "next_cursor"), List.of("next_cursor"))),
            Map.entry("Usage", new Answer(List.of("cpu_ms", "max_rss_bytes"), List.of("cpu_ms", "max_rss_bytes"))),
            Map.entry("JobEnvironment", new Answer(fieldsOf(dev.nixexec.job.JobView.EnvironmentView.class),
                    fieldsOf(dev.nixexec.job.JobView.EnvironmentView.class))),
            Map.entry("ErrorView", new Answer(List.of("code", "message"), List.of())),
            Map.entry("Artifact", new Answer(fieldsOf(dev.nixexec.workspace.Artifact.class), List.of())),
            Map.entry("KeyListed", new Answer(fieldsOf(AdminResource.KeyListed.class),
                    List.of("name", "last_used_at", "expires_at", "revoked_at"))),
            Map.entry("KeyView", new Answer(fieldsOf(AdminResource.KeyView.class), List.of("name", "expires_at"))),
            Map.entry("TenantView", new Answer(fieldsOf(AdminResource.TenantView.class), List.of())),
            Map.entry("WebhookSecretView", new Answer(fieldsOf(AdminResource.WebhookSecretView.class), List.of())),
            Map.entry("AuditPage", new Answer(fieldsOf(PlatformResource.AuditPage.class), List.of("next_cursor"))),
            // a record of no tenant, no job, no key (the start-up's) or written by an API node (no node)
            Map.entry("AuditEntry", new Answer(fieldsOf(dev.nixexec.audit.AuditLog.Entry.class),
                    List.of("tenant_id", "job_id", "key_id", "node_id", "key"))),
            // a key made without a name
            Map.entry("KeyRef", new Answer(fieldsOf(dev.nixexec.audit.KeyRef.class), List.of("name"))),
            // a language without a package set of its own; a version not known until the package index is listed
            Map.entry("LanguageView", new Answer(fieldsOf(PlatformResource.LanguageView.class), List.of("package_set", "version"))),
            Map.entry("NodeView", new Answer(fieldsOf(PlatformResource.NodeView.class), List.of())),
            Map.entry("NodeEnvironment", new Answer(fieldsOf(dev.nixexec.worker.NodeEnvironments.Entry.class), List.of())),
            // the optional parts of a session's request, its environment until built, its error unless failed
            Map.entry("SessionView", new Answer(fieldsOf(dev.nixexec.session.SessionView.class),
                    List.of("name", "profile", "agent", "description", "environment", "build_job_id", "error", "host_workspace"))),
            // the job that made the workspace's version: none for an upload or a new workspace
            Map.entry("WorkspaceView", new Answer(fieldsOf(dev.nixexec.workspace.WorkspaceView.class), List.of("version_job_id"))),
            Map.entry("WorkspaceList", new Answer(fieldsOf(WorkspacesResource.ListBody.class), List.of())),
            Map.entry("WorkspaceFiles", new Answer(fieldsOf(WorkspacesResource.FilesBody.class), List.of())),
            Map.entry("WorkspaceFile", new Answer(fieldsOf(dev.nixexec.workspace.WorkspaceFile.class), List.of())),
            // a revision the build did not report
            Map.entry("SessionEnvironment", new Answer(fieldsOf(dev.nixexec.session.SessionView.EnvironmentView.class),
                    List.of("nixpkgs_revision"))),
            Map.entry("ProfileList", new Answer(fieldsOf(ProfilesResource.ListBody.class), List.of())),
            Map.entry("ProfileBody", new Answer(fieldsOf(ProfilesResource.ProfileBody.class), List.of())),
            // written without its nulls: the store path, revision, build time and cache hit once built, the error once failed
            Map.entry("EnvironmentBuild", new Answer(List.of("id", "status", "language", "packages"), List.of())),
            // every field is written only when set: one left out is the service's default
            Map.entry("TenantPolicy", new Answer(fieldsOf(dev.nixexec.tenant.TenantPolicy.class), List.of())),
            Map.entry("PackageHit", new Answer(fieldsOf(dev.nixexec.nix.PackageHit.class), List.of())),
            Map.entry("CatalogContents", new Answer(fieldsOf(dev.nixexec.catalog.Catalog.Contents.class), List.of())),
            Map.entry("CatalogGrouped", new Answer(fieldsOf(dev.nixexec.catalog.Catalog.Grouped.class), List.of())),
            // written without its nulls: an entry's category is optional (Catalog checks the rest)
            Map.entry("CatalogEntry", new Answer(List.of("name", "attribute", "description"), List.of())),
            Map.entry("JobEventLine", new Answer(fieldsOf(JobEventLine.class), List.of())));

    /** A node's role ({@code nixexec.node.role}), as the setting allows it: not a key's {@link Role}. */
    private static final List<String> NODE_ROLES = nodeRoles();

    @Override
    public void filterOpenAPI(OpenAPI openApi) {
        if (openApi.getComponents() == null) {
            openApi.setComponents(OASFactory.createComponents());
        }
        openApi.getComponents().addSchema("FieldProblem", OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .addProperty("field", string()).addProperty("message", string()).required(List.of("field", "message")));
        openApi.getComponents().addSchema("Problem", OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .description("RFC 9457 problem details")
                .addProperty("type", string()).addProperty("title", string())
                .addProperty("status", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER))
                .addProperty("detail", string())
                .addProperty("errors", OASFactory.createSchema().addType(Schema.SchemaType.ARRAY)
                        .items(OASFactory.createSchema().ref(SCHEMAS + "FieldProblem")))
                .required(List.of("type", "title", "status")));
        Schema sizeOrBytes = OASFactory.createSchema().oneOf(List.of(
                OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).minimum(java.math.BigDecimal.ONE).description("bytes"),
                string().description("a size such as \"64MiB\"")));
        Schema count = OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).minimum(java.math.BigDecimal.ONE);
        openApi.getComponents().addSchema("RequestedLimits", OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                .description("lower limits for one job than the tenant's, each optional")
                .addProperty("memory", sizeOrBytes).addProperty("pids", count).addProperty("cpu_seconds", count)
                .addProperty("output_bytes", sizeOrBytes).additionalPropertiesBoolean(false));
        listRowsByName(openApi, openApi.getComponents().getSchemas().get("JobList"));
        Map<String, Schema> schemas = openApi.getComponents().getSchemas();
        schemas.forEach((name, schema) -> walk(schema, name));
        // JsonNode and what its scan dragged in (JsonNodeType; OutboundSseEvent and MediaType from the SSE method's signature)
        for (String internal : List.of("JsonNode", "JsonNodeType", "OutboundSseEvent", "MediaType")) {
            openApi.getComponents().removeSchema(internal);
        }
        // the checks answer 400 without them (SubmitBody, JobsResource, AdminResource)
        Map.of("SubmitBody", List.of("language", "code"), "BatchBody", List.of("jobs"), "TenantBody", List.of("name"),
                "KeyBody", List.of("role"), "PolicyPatchBody", List.of("policy")).forEach((name, required) -> {
                    if (schemas.get(name) != null) {
                        schemas.get(name).setRequired(required);
                    }
                });
        Schema batchItem = schemas.get("BatchItem");
        if (batchItem != null && batchItem.getProperties() != null && batchItem.getProperties().containsKey("error")) {
            batchItem.addProperty("error", OASFactory.createSchema().ref(SCHEMAS + "Problem")
                    .description("why this submission was refused (no job was stored for it)"));
            // the new job's id or the refusal in its place, never both
            batchItem.oneOf(List.of(OASFactory.createSchema().required(List.of("id")),
                    OASFactory.createSchema().required(List.of("error"))));
        }
        eventLinePayloadsByType(schemas.get("JobEventLine"));
        ANSWERS.forEach((name, fields) -> {
            Schema schema = schemas.get(name);
            if (schema != null) {
                alwaysPresent(schema, fields);
            }
        });
        if (openApi.getPaths() != null && openApi.getPaths().getPathItems() != null) {
            openApi.getPaths().getPathItems().forEach((path, item) -> {
                if (path.startsWith("/v1/") && item.getOperations() != null) {
                    item.getOperations().forEach((method, operation) -> describe(path, method, operation));
                }
            });
        }
    }

    private void describe(String path, PathItem.HttpMethod method, Operation operation) {
        if (operation.getParameters() != null) {
            for (Parameter parameter : operation.getParameters()) {
                if (parameter.getSchema() != null && parameter.getIn() == Parameter.In.QUERY) {
                    closedSet(parameter.getName(), parameter.getSchema(), path.startsWith("/v1/jobs") ? "Job" : "");
                }
            }
        }
        var responses = operation.getResponses();
        if (responses.getAPIResponses() != null) {
            responses.getAPIResponses().values().forEach(OpenApiFilter::mediaTypesWithoutQuality);
        }
        eventStreamAsText(responses.getAPIResponse("200"));
        if (method == PathItem.HttpMethod.DELETE && responses.hasAPIResponse("200") && isEmpty(responses.getAPIResponse("200"))) {
            responses.removeAPIResponse("200");
            responses.addAPIResponse("204", OASFactory.createAPIResponse().description("Deleted"));
        }
        boolean body = operation.getRequestBody() != null;
        boolean secured = operation.getSecurity() != null && !operation.getSecurity().isEmpty();
        List<String> problems = new ArrayList<>();
        if (body || (operation.getParameters() != null && !operation.getParameters().isEmpty())) {
            problems.add("400");
        }
        if (secured) {
            problems.addAll(List.of("401", "403", "429"));
        }
        if (path.contains("{")) {
            problems.add("404");
        }
        if (CHANGING.contains(method) && CONFLICTING.stream().anyMatch(path::startsWith)) {
            problems.add("409");
        }
        if (body) {
            problems.add("413");
            var content = operation.getRequestBody().getContent();
            if (content != null && content.hasMediaType("application/json")) {
                problems.add("415");
            }
        }
        problems.add("503");
        for (String status : problems) {
            // the scan may have put one there without a body (a 400 for a request body): it has the problem's
            if (!responses.hasAPIResponse(status) || responses.getAPIResponse(status).getContent() == null) {
                responses.addAPIResponse(status, problem(TITLES.get(status)));
            }
        }
    }

    /**
     * The list's rows, which the scan inlines into JobList, as a schema of their own (JobListRow);
     * with {@code fields=full} the items are whole jobs, so an item is either.
     */
    private static void listRowsByName(OpenAPI openApi, Schema list) {
        Schema items = list == null || list.getProperties() == null ? null : list.getProperties().get("items");
        if (items == null || items.getItems() == null || items.getItems().getRef() != null) {
            return;
        }
        openApi.getComponents().addSchema("JobListRow", items.getItems());
        items.setItems(OASFactory.createSchema().anyOf(List.of(OASFactory.createSchema().ref(SCHEMAS + "JobListRow"),
                OASFactory.createSchema().ref(SCHEMAS + "JobView"))));
    }

    /**
     * The JSON names of a record's components that Jackson always writes: not {@code @JsonInclude(NON_NULL)},
     * neither the component nor the record.
     */
    private static List<String> fieldsOf(Class<? extends Record> type) {
        if (nonNull(type.getAnnotation(JsonInclude.class))) {
            return List.of();
        }
        return Arrays.stream(type.getRecordComponents())
                .filter(c -> !nonNull(c.getAccessor().getAnnotation(JsonInclude.class)))
                .map(c -> PropertyNamingStrategies.SnakeCaseStrategy.INSTANCE.translate(c.getName())).toList();
    }

    private static boolean nonNull(JsonInclude include) {
        return include != null && include.value() == JsonInclude.Include.NON_NULL;
    }

    /** A list row ({@link JobListRow}): a job's fields without stdout and stderr, and their previews. */
    private static List<String> listRow(List<String> jobFields) {
        List<String> row = new ArrayList<>(jobFields.stream().filter(f -> !f.equals("stdout") && !f.equals("stderr")).toList());
        row.addAll(List.of("stdout_preview", "stderr_preview"));
        return row;
    }

    /** Marks the fields required, and the nullable ones as also taking null (a $ref becomes anyOf it or null). */
    private static void alwaysPresent(Schema schema, Answer answer) {
        schema.setRequired(new ArrayList<>(answer.required()));
        if (schema.getProperties() == null) {
            return;
        }
        for (String name : answer.nullable()) {
            Schema property = schema.getProperties().get(name);
            if (property == null) {
                continue;
            }
            if (property.getRef() != null) {
                schema.addProperty(name, OASFactory.createSchema().description(property.getDescription())
                        .anyOf(List.of(OASFactory.createSchema().ref(property.getRef()),
                                OASFactory.createSchema().addType(Schema.SchemaType.NULL))));
            } else if (property.getType() != null && !property.getType().contains(Schema.SchemaType.NULL)) {
                property.addType(Schema.SchemaType.NULL);
            }
        }
    }

    /** A Response-returning delete shows as a 200 with no schema; it answers 204. */
    private static boolean isEmpty(APIResponse response) {
        return response.getContent() == null || response.getContent().getMediaTypes() == null
                || response.getContent().getMediaTypes().values().stream().allMatch(m -> m.getSchema() == null
                        || (m.getSchema().getRef() == null && m.getSchema().getType() == null && m.getSchema().getProperties() == null));
    }

    /**
     * The SSE frames of /v1/jobs/{id}/events are text whose data is the event's own (JobsResource#events),
     * not the JAX-RS event object the scan saw, nor a JobEventLine (that is the NDJSON form's line).
     */
    private static void eventStreamAsText(APIResponse ok) {
        if (ok == null || ok.getContent() == null || !ok.getContent().hasMediaType("text/event-stream")) {
            return;
        }
        ok.getContent().getMediaType("text/event-stream").setSchema(string().description("server-sent events: `id:` the "
                + "event's sequence number; `event:` status, stdout, stderr or result; `data:` the job's status, the text "
                + "printed, or the job's JSON (a JobView)"));
    }

    /**
     * A JobEventLine's payload by its type (JobEventLine#of): a lifecycle line carries the job's status,
     * an output line the text printed, the result line the job.
     */
    private static void eventLinePayloadsByType(Schema line) {
        if (line == null || line.getProperties() == null) {
            return;
        }
        line.getProperties().get("type").setEnumeration(new ArrayList<>(JobEventLine.TYPES));
        Schema lifecycle = OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).required(List.of("status"))
                .addProperty("status", string().enumeration(new ArrayList<>(ids(JobStatus.values(), JobStatus::id))));
        Schema output = OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).required(List.of("text"))
                .addProperty("text", string());
        line.oneOf(List.of(linePayload(List.of("lifecycle"), lifecycle), linePayload(List.of("stdout", "stderr"), output),
                linePayload(List.of("result"), OASFactory.createSchema().ref(SCHEMAS + "JobView"))));
    }

    private static Schema linePayload(List<String> types, Schema payload) {
        return OASFactory.createSchema().addProperty("type", OASFactory.createSchema().enumeration(new ArrayList<>(types)))
                .addProperty("payload", payload);
    }

    /**
     * {@code ;qs=} is the server's preference among what it produces (JobsResource#eventLines), not a
     * parameter of the media type it answers with: the document names the media type alone.
     */
    private static void mediaTypesWithoutQuality(APIResponse response) {
        if (response.getContent() == null || response.getContent().getMediaTypes() == null) {
            return;
        }
        Map.copyOf(response.getContent().getMediaTypes()).forEach((name, media) -> {
            if (name.contains(";qs=")) {
                response.getContent().removeMediaType(name);
                response.getContent().addMediaType(name.substring(0, name.indexOf(';')).strip(), media);
            }
        });
    }

    private static APIResponse problem(String title) {
        return OASFactory.createAPIResponse().description(title).content(OASFactory.createContent()
                .addMediaType(PROBLEM_JSON, OASFactory.createMediaType()
                        .schema(OASFactory.createSchema().ref(SCHEMAS + "Problem"))));
    }

    /**
     * Walks a schema: JsonNode references become concrete schemas, closed sets get their enum;
     * {@code owner}: the name of the schema the walk began at, which says what a property's name means.
     */
    private void walk(Schema schema, String owner) {
        if (schema == null || schema.getProperties() == null) {
            return;
        }
        for (Map.Entry<String, Schema> property : Map.copyOf(schema.getProperties()).entrySet()) {
            Schema value = property.getValue();
            if (value.getRef() != null && value.getRef().endsWith("/JsonNode")) {
                schema.addProperty(property.getKey(), forJsonNode(property.getKey(), value.getDescription()));
                continue;
            }
            if (value.getItems() != null && value.getItems().getRef() != null && value.getItems().getRef().endsWith("/JsonNode")) {
                value.setItems(OASFactory.createSchema().addType(Schema.SchemaType.OBJECT));
            }
            closedSet(property.getKey(), value, owner);
            walk(value, owner);
            walk(value.getItems(), owner);
        }
    }

    /** {@code timeout} and {@code idle_ttl} take "30s" or 30; {@code limits} is a RequestedLimits, event payloads objects. */
    private static Schema forJsonNode(String property, String description) {
        Schema concrete = switch (property) {
            case "timeout", "idle_ttl", "idleTtl" -> OASFactory.createSchema().oneOf(List.of(
                    string().description("a duration such as \"30s\", \"5m\" or \"PT30S\""),
                    OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).minimum(java.math.BigDecimal.ONE)
                            .description("seconds")));
            case "limits" -> OASFactory.createSchema().ref(SCHEMAS + "RequestedLimits");
            default -> OASFactory.createSchema().addType(Schema.SchemaType.OBJECT);
        };
        return description == null ? concrete : concrete.description(description);
    }

    /**
     * Values taken from the service's enums, so the document and the checks cannot drift apart;
     * {@code owner}: the schema (a Job..., a Node..., a key's) or the path ("Job" for /v1/jobs) it is of.
     */
    private static void closedSet(String name, Schema schema, String owner) {
        if (schema.getType() == null || !schema.getType().contains(Schema.SchemaType.STRING)) {
            return;
        }
        boolean ofAJob = owner.startsWith("Job");
        List<String> values = switch (name) {
            case "language" -> Language.ids();
            case "status" -> switch (owner) {
                case "SessionView" -> ids(SessionStatus.values(), SessionStatus::id);
                case "EnvironmentBuild" -> EnvironmentBuild.STATUSES;
                case "NodeEnvironment" -> ids(EnvironmentsAhead.Status.values(), OpenApiFilter::lowerCase);
                default -> ofAJob ? ids(JobStatus.values(), JobStatus::id) : null;
            };
            case "source" -> owner.equals("NodeEnvironment") ? ids(EnvironmentsAhead.Source.values(), OpenApiFilter::lowerCase) : null;
            case "network" -> List.of("off", "full");
            case "encoding" -> ids(OutputEncoding.values(), OutputEncoding::id);
            case "role" -> owner.startsWith("Node") ? NODE_ROLES : ids(Role.values(), Role::id);
            case "fields" -> ofAJob ? JobsResource.LIST_FIELDS : null;
            default -> null;
        };
        if (values != null) {
            schema.setEnumeration(new ArrayList<>(values));
        }
    }

    private static List<String> nodeRoles() {
        try {
            return List.of(NixExecConfig.Node.class.getMethod("role").getAnnotation(OneOf.class).value());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How NodeEnvironments writes an enum's value. */
    private static String lowerCase(Enum<?> value) {
        return value.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static <T> List<String> ids(T[] values, Function<T, String> id) {
        return Arrays.stream(values).map(id).toList();
    }

    private static Schema string() {
        return OASFactory.createSchema().addType(Schema.SchemaType.STRING);
    }
}

package dev.nixexec.api;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Every error as {@code application/problem+json}: type, title, status, detail, and field errors. */
public class Problems {

    private static final Logger LOG = Logger.getLogger(Problems.class);
    static final String MEDIA_TYPE = "application/problem+json";

    static Response response(int status, String title, String detail, List<FieldError> errors) {
        return Response.status(status).type(MEDIA_TYPE).entity(body(status, title, detail, errors)).build();
    }

    /** The problem document itself, for answers given before JAX-RS (see {@link BodyChecks}). */
    static Map<String, Object> body(int status, String title, String detail, List<FieldError> errors) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "https://nix-exec.dev/problems/" + title.toLowerCase(java.util.Locale.ROOT).replace(' ', '-'));
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        if (errors != null && !errors.isEmpty()) {
            body.put("errors", errors);
        }
        return body;
    }

    /** A refusal as one answer among others (a batch's item): the problem document it would be alone. */
    static Map<String, Object> item(RuntimeException e) {
        Response alone = switch (e) {
            case InvalidRequestException invalid -> of(invalid);
            case Refusal refusal -> of(refusal);
            default -> throw e;
        };
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) alone.getEntity();
        return body;
    }

    @ServerExceptionMapper
    public Response invalid(InvalidRequestException e) {
        return of(e);
    }

    static Response of(InvalidRequestException e) {
        return e.tooLarge()
                ? response(413, "Payload Too Large", e.getMessage(), e.errors())
                : response(400, "Bad Request", e.getMessage(), e.errors());
    }

    @ServerExceptionMapper
    public Response refused(Refusal e) {
        return of(e);
    }

    static Response of(Refusal e) {
        Response response = response(e.kind().status, e.kind().title, e.getMessage(), null);
        return e.retryAfter().map(after -> Response.fromResponse(response)
                .header("Retry-After", Long.toString(Math.max(1, after.toSeconds()))).build()).orElse(response);
    }

    @ServerExceptionMapper
    public Response unreadableBody(BodyText.UnreadableBody e) {
        return unreadable(e.reading());
    }

    /**
     * Jackson failing anywhere but on the request body — writing an answer, reading what was stored —
     * is the server's error, never the caller's: a 500, logged. (One mapper per type Quarkus maps
     * itself to a 400.)
     */
    @ServerExceptionMapper
    public Response mismatched(com.fasterxml.jackson.databind.exc.MismatchedInputException e) {
        return jsonFailed(e);
    }

    @ServerExceptionMapper
    public Response malformed(com.fasterxml.jackson.core.JsonParseException e) {
        return jsonFailed(e);
    }

    @ServerExceptionMapper
    public Response jsonFailed(com.fasterxml.jackson.core.JsonProcessingException e) {
        LOG.error("JSON failed outside the request body", e);
        return response(500, "Internal Server Error", "unexpected error; see the service log", null);
    }

    /**
     * What {@link BodyText} did not already refuse, said without Jackson's own message, which names
     * our Java types ({@code dev.nixexec...}, {@code java.lang.String}) and is no part of the contract.
     */
    private static Response unreadable(com.fasterxml.jackson.core.JsonProcessingException e) {
        FieldError problem;
        String detail;
        if (e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException unknown) {
            problem = new FieldError(unknown.getPropertyName(), "unknown field");
            detail = "unknown field '" + unknown.getPropertyName() + "'";
        } else if (e instanceof com.fasterxml.jackson.databind.JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            problem = new FieldError(fieldPath(mapping.getPath()), "has the wrong type or shape");
            detail = "field '" + problem.field() + "' has the wrong type or shape";
        } else if (e instanceof com.fasterxml.jackson.databind.JsonMappingException) {
            problem = new FieldError("body", "must be a JSON object");
            detail = "the request body must be a JSON object";
        } else {
            var at = e.getLocation();
            String where = at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
            problem = new FieldError("body", "not valid JSON" + where);
            detail = "the request body is not valid JSON" + where;
        }
        return response(400, "Bad Request", detail, List.of(problem));
    }

    private static String fieldPath(List<com.fasterxml.jackson.databind.JsonMappingException.Reference> path) {
        StringBuilder b = new StringBuilder();
        for (var ref : path) {
            if (ref.getFieldName() != null) {
                b.append(b.isEmpty() ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                b.append('[').append(ref.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    /**
     * JAX-RS answers a query parameter that does not convert to its type ({@code limit=abc}) with
     * 404, as if the resource did not exist: it is the caller's mistake, a 400 naming the parameter.
     * A conversion failure is the only {@code NotFoundException} with a cause that reaches here.
     */
    @ServerExceptionMapper
    public Response notFound(jakarta.ws.rs.NotFoundException e, jakarta.ws.rs.container.ResourceInfo resource,
            jakarta.ws.rs.core.UriInfo uri) {
        if (e.getCause() != null && resource != null && resource.getResourceMethod() != null) {
            List<FieldError> errors = new java.util.ArrayList<>();
            for (java.lang.reflect.Parameter p : resource.getResourceMethod().getParameters()) {
                jakarta.ws.rs.QueryParam query = p.getAnnotation(jakarta.ws.rs.QueryParam.class);
                String value = query == null ? null : uri.getQueryParameters().getFirst(query.value());
                if (value != null && !converts(value, p.getType())) {
                    String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
                    errors.add(new FieldError(query.value(), "must be " + kind(p.getType()) + ", not '" + shown + "'"));
                }
            }
            if (!errors.isEmpty()) {
                return response(400, "Bad Request", "query parameter '" + errors.get(0).field() + "' "
                        + errors.get(0).message(), errors);
            }
        }
        return web(e, null);
    }

    private static boolean converts(String value, Class<?> type) {
        Class<?> boxed = java.lang.invoke.MethodType.methodType(type).wrap().returnType();
        for (String factory : List.of("valueOf", "fromString")) {
            try {
                boxed.getMethod(factory, String.class).invoke(null, value);
                return true;
            } catch (java.lang.reflect.InvocationTargetException failed) {
                return false;
            } catch (ReflectiveOperationException noSuchFactory) {
                // try the next
            }
        }
        return true;
    }

    private static String kind(Class<?> type) {
        Class<?> boxed = java.lang.invoke.MethodType.methodType(type).wrap().returnType();
        if (boxed == Integer.class || boxed == Long.class || boxed == Short.class) {
            return "a whole number";
        }
        return boxed == java.util.UUID.class ? "a UUID" : "a valid value";
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, jakarta.ws.rs.core.HttpHeaders headers) {
        int status = e.getResponse().getStatus();
        String detail;
        List<FieldError> errors = null;
        if (status == 415) {
            String type = headers == null ? null : headers.getHeaderString("Content-Type");
            detail = type == null || type.isBlank() ? "Content-Type: application/json is required (the request has none)"
                    : "Content-Type: application/json is required, not '" + type + "'";
        } else if (status == 400) {
            detail = "the request body is not valid JSON of the expected shape";
            errors = List.of(new FieldError("body", "not valid JSON of the expected shape"));
        } else if (status == 413) {
            detail = "the request body is larger than this service accepts";
        } else {
            detail = e.getMessage();
        }
        return response(status, e.getResponse().getStatusInfo().getReasonPhrase(), detail, errors);
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        if (DatabaseOutage.causedBy(e)) {
            LOG.warnf("the database is unreachable: %s", e.getMessage());
            return Response.fromResponse(response(503, "Service Unavailable",
                    "the database is unreachable; nothing was stored, try again shortly", null))
                    .header("Retry-After", "5").build();
        }
        LOG.error("unexpected error", e);
        return response(500, "Internal Server Error", "unexpected error; see the service log", null);
    }
}

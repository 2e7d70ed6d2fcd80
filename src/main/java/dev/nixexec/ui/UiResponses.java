package dev.nixexec.ui;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.UUID;

/**
 * The UI's redirects and refusals: short text rather than the REST API's problem+json. Each UI
 * resource maps {@link Refusal} and {@link WebApplicationException} through here with its own
 * {@code @ServerExceptionMapper}, which applies to that resource only.
 */
final class UiResponses {

    private UiResponses() {
    }

    static Response seeOther(String path) {
        return Response.seeOther(URI.create(path)).build();
    }

    static WebApplicationException forbidden(String message) {
        return new WebApplicationException(Response.status(403).type(MediaType.TEXT_PLAIN).entity(message).build());
    }

    /** A job of another tenant (or none) and the like, as a short page rather than JSON. */
    static Response refused(Refusal e) {
        return Response.status(e.kind().status).type("text/plain; charset=utf-8").entity(e.getMessage()).build();
    }

    /** An id in a page's path, as {@link Refusal#uuidOr404}. */
    static UUID idOr404(String id) {
        return Refusal.uuidOr404(id, "no job " + id);
    }

    /** {@code ?tenant=} for an operator acting in another tenant than its own, else empty. */
    static String tenantSuffix(Caller signedIn, Caller acting) {
        return acting.tenantId().equals(signedIn.tenantId()) ? "" : "?tenant=" + acting.tenantId();
    }
}

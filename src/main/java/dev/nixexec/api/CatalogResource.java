package dev.nixexec.api;

import dev.nixexec.session.Catalog;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

/** {@code GET /v1/catalog}: the agents and tools a session or profile can name ({@link Catalog}). */
@SecurityRequirement(name = "bearer")
@Path("/v1/catalog")
@Produces(MediaType.APPLICATION_JSON)
public class CatalogResource {

    private final Catalog catalog;
    private final CallerContext caller;

    public CatalogResource(Catalog catalog, CallerContext caller) {
        this.catalog = catalog;
        this.caller = caller;
    }

    @GET
    public Object get(@QueryParam("filter") String filter, @QueryParam("grouped") boolean grouped) {
        caller.get();
        return grouped ? catalog.grouped(filter) : catalog.list(filter);
    }
}

package dev.nixexec.api;

import dev.nixexec.catalog.Catalog;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /v1/catalog}: the agents and tools a session or profile can name ({@link Catalog}). */
@SecurityRequirement(name = "bearer")
@Tag(name = "Catalog", description = "Curated packages for sessions")
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
    @APIResponse(responseCode = "200", description = "The catalog: {agents, tools}, or with grouped=true {agent_categories, tools}",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(oneOf = {Catalog.Contents.class, Catalog.Grouped.class})))
    @Operation(summary = "Read the package catalog", description = "The curated packages sessions are composed from, optionally filtered by name or grouped by category.")
    public Object get(@QueryParam("filter") String filter, @QueryParam("grouped") boolean grouped) {
        caller.get();
        return grouped ? catalog.grouped(filter) : catalog.list(filter);
    }
}

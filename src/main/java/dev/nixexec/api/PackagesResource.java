package dev.nixexec.api;

import dev.nixexec.nix.PackageHit;
import dev.nixexec.nix.PackageIndex;
import dev.nixexec.nix.PackageQuery;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /v1/packages}: search of the pinned nixpkgs, one query of {@link PackageIndex}. */
@SecurityRequirement(name = "bearer")
@Tag(name = "Packages", description = "Searching the pinned nixpkgs")
@Path("/v1/packages")
@Produces(MediaType.APPLICATION_JSON)
public class PackagesResource {

    private final PackageIndex index;
    private final CallerContext caller;

    public PackagesResource(PackageIndex index, CallerContext caller) {
        this.index = index;
        this.caller = caller;
    }

    @Operation(summary = "Search packages", description = "Packages of the pinned nixpkgs whose name or description matches `q`, optionally within a language's package set.")
    @GET
    @RunOnVirtualThread
    public List<PackageHit> search(@QueryParam("q") String q, @QueryParam("language") String language,
            @QueryParam("limit") Integer limit) {
        caller.get();
        return index.search(PackageQuery.of("q", q, language, limit));
    }
}

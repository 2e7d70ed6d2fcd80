package dev.nixexec.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.nixexec.profile.Profile;
import dev.nixexec.profile.ProfileLimits;
import dev.nixexec.profile.Profiles;
import dev.nixexec.profile.SpecBody;
import dev.nixexec.profile.WritablePath;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /v1/profiles}: nixo's built-in profiles and the tenant's own; any key of the tenant lists
 * them, its admins (or an operator, with {@code ?tenant=}) define, replace and delete its own.
 */
@SecurityRequirement(name = "bearer")
@Tag(name = "Profiles", description = "Named job and session settings")
@Path("/v1/profiles")
@Produces(MediaType.APPLICATION_JSON)
public class ProfilesResource {

    private final Profiles profiles;
    private final CallerContext caller;

    public ProfilesResource(Profiles profiles, CallerContext caller) {
        this.profiles = profiles;
        this.caller = caller;
    }

    /** A profile as the API shows it; {@code limits.timeout} in seconds, as a submit body takes it. */
    public record ProfileBody(String name, String description, String network, List<String> packages,
            List<String> writable, Map<String, String> env, Map<String, Object> limits, boolean builtIn) {

        static ProfileBody of(Profile p) {
            Map<String, Object> limits = new LinkedHashMap<>();
            p.limits().timeout().ifPresent(t -> limits.put("timeout", seconds(t)));
            return new ProfileBody(p.name(), p.description(), p.spec().network() ? "full" : "off", p.spec().packages(),
                    Arrays.stream(WritablePath.values()).filter(p.spec().writable()::contains).map(WritablePath::path)
                            .toList(), p.spec().env(), limits, p.builtIn());
        }

        private static Number seconds(Duration d) {
            return d.toMillis() % 1000 == 0 ? (Number) d.toSeconds() : (Number) (d.toMillis() / 1000.0);
        }
    }

    @Schema(name = "ProfileList")
    public record ListBody(List<ProfileBody> items) {
    }

    /** The body of {@code PUT /v1/profiles/{name}}: a spec, a description and limits. */
    @Schema(name = "ProfilePutBody")
    public record PutBody(String description, List<String> packages, Map<String, String> env, String network,
            List<String> writable, LimitsBody limits) {
    }

    @Schema(name = "ProfileLimits")
    public record LimitsBody(JsonNode timeout) {
    }

    @Operation(summary = "List profiles", description = "The profiles jobs and sessions may run under: the built-in ones and the tenant's own.")
    @GET
    @RunOnVirtualThread
    public ListBody list(@QueryParam("tenant") String tenant) {
        return new ListBody(profiles.list(caller.tenantOrOwn(tenant)).stream().map(ProfileBody::of).toList());
    }

    @Operation(summary = "Create or replace a profile", description = "A named set of packages, env, network and timeout; 201 when new, 200 when replaced.")
    @PUT
    @Path("{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @APIResponse(responseCode = "201", description = "The profile, created", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ProfileBody.class)))
    @APIResponse(responseCode = "200", description = "The profile, replaced", content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ProfileBody.class)))
    public Response put(@PathParam("name") String name, @QueryParam("tenant") String tenant, PutBody body) {
        RequestParams.requireBody(body);
        UUID tenantId = caller.tenantOrOwn(tenant);
        Optional<Duration> timeout = body.limits() == null ? Optional.empty()
                : SubmitBody.duration("limits.timeout", body.limits().timeout());
        Profiles.Saved saved = profiles.put(caller.get(), tenantId, name, body.description(),
                new SpecBody(name, body.packages(), body.env(), body.network(), body.writable()),
                new ProfileLimits(timeout));
        return Response.status(saved.created() ? 201 : 200).entity(ProfileBody.of(saved.profile()))
                .header("Location", "/v1/profiles/" + name).build();
    }

    @Operation(summary = "Delete a profile", description = "Jobs and sessions that ran under it keep their record.")
    @DELETE
    @Path("{name}")
    @RunOnVirtualThread
    public Response delete(@PathParam("name") String name, @QueryParam("tenant") String tenant) {
        profiles.delete(caller.get(), caller.tenantOrOwn(tenant), name);
        return Response.noContent().build();
    }
}

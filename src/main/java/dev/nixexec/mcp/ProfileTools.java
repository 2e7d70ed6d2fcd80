package dev.nixexec.mcp;

import static dev.nixexec.mcp.ToolErrors.refusalsAsErrors;

import dev.nixexec.nix.PackageHit;
import dev.nixexec.nix.PackageIndex;
import dev.nixexec.nix.PackageQuery;
import dev.nixexec.profile.Profile;
import dev.nixexec.profile.Profiles;
import dev.nixexec.profile.WritablePath;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.RunOnVirtualThread;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The read-only tools an agent uses to choose what to run with: the tenant's profiles and package search. */
public class ProfileTools {

    private final Profiles profiles;
    private final PackageIndex packages;
    private final SecurityIdentity identity;
    private final KnownArguments knownArguments;

    public ProfileTools(Profiles profiles, PackageIndex packages, SecurityIdentity identity,
            KnownArguments knownArguments) {
        this.profiles = profiles;
        this.packages = packages;
        this.identity = identity;
        this.knownArguments = knownArguments;
    }

    @Tool(name = "list_profiles", description = "The profiles run_code and submit_job can name (profile): nixo's "
            + "built-ins and your tenant's own, each with its network mode, packages, writable paths, env and limits.",
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse listProfiles(RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            List<Profile> all = profiles.list(CallerIdentity.caller(identity).tenantId());
            return ToolResponse.success(all.stream().map(ProfileTools::line).collect(Collectors.joining("\n")));
        });
    }

    @Tool(name = "search_packages", description = "Search the pinned nixpkgs for packages to name in packages: "
            + "attribute, version and description, best matches first.",
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse searchPackages(@ToolArg(description = "Words to find in a package's attribute or description, "
            + "e.g. numpy or json parser.") String query,
            @ToolArg(description = "Only this language's package set (python: python3Packages.*); a language "
                    + "without a set: top-level packages.", required = false) String language,
            @ToolArg(description = "How many packages, 1 to 100; default 20.", required = false) Integer limit,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            CallerIdentity.caller(identity);
            List<PackageHit> hits = packages.search(PackageQuery.of("query", query, language, limit));
            return ToolResponse.success(hits.isEmpty() ? "No package matches '" + query.strip() + "'."
                    : hits.stream().map(h -> h.attribute() + (h.version().isEmpty() ? "" : " " + h.version())
                            + (h.description().isEmpty() ? "" : ": " + h.description()))
                            .collect(Collectors.joining("\n")));
        });
    }

    private static String line(Profile p) {
        return p.name() + (p.builtIn() ? " (built-in)" : "") + ": network " + (p.spec().network() ? "full" : "off")
                + "; packages " + String.join(", ", p.spec().packages())
                + "; writable " + Arrays.stream(WritablePath.values()).filter(p.spec().writable()::contains)
                        .map(WritablePath::path).collect(Collectors.joining(", "))
                + (p.spec().env().isEmpty() ? "" : "; env " + String.join(", ", p.spec().env().keySet()))
                + p.limits().timeout().map(t -> "; timeout " + t.toSeconds() + "s").orElse("")
                + (p.description().isEmpty() ? "" : ". " + p.description());
    }
}

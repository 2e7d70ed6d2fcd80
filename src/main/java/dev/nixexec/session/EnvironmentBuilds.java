package dev.nixexec.session;

import dev.nixexec.catalog.Catalog;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.job.Submission;
import dev.nixexec.job.JobView;
import dev.nixexec.job.JobWaits;
import dev.nixexec.job.JobReads;
import dev.nixexec.profile.ProfileSubmissions;
import dev.nixexec.profile.Spec;
import dev.nixexec.profile.SpecCheck;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.workspace.JobFiles;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Environments built ahead ({@code POST /v1/environments}, nixo's {@code build}). The build is a
 * job like any other (queue, fairness, limits, audit, the fleet cache it publishes to) whose code
 * does nothing: a worker builds the environment as it would for a job of that language with those
 * packages, so a later job or session asking the same is a cache hit, here or, through the fleet
 * cache, on any worker. The job carries {@code metadata.environment_build}.
 */
@ApplicationScoped
public class EnvironmentBuilds {

    static final String MARK = JobView.ENVIRONMENT_BUILD_MARK;

    /** Code that runs and does nothing, per language. */
    private static final Map<String, String> NOTHING = Map.of("bash", "true", "python", "pass", "node", "0;",
            "haskell", "main :: IO ()\nmain = return ()", "lua", "local _ = 0", "ruby", "nil", "perl", "1;",
            "octave", "0;");

    private final JobWaits waits;
    private final JobReads reads;
    private final ProfileSubmissions profiles;
    private final SpecCheck specs;
    private final Tenants tenants;
    private final Catalog catalog;

    EnvironmentBuilds(JobWaits waits, JobReads reads, ProfileSubmissions profiles, SpecCheck specs, Tenants tenants,
            Catalog catalog) {
        this.catalog = catalog;
        this.waits = waits;
        this.reads = reads;
        this.profiles = profiles;
        this.specs = specs;
        this.tenants = tenants;
    }

    public EnvironmentBuild build(Caller caller, EnvironmentBuildRequest request, Duration wait) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot build environments");
        }
        List<String> given = Stream.of(request.packages() == null ? null : "packages",
                request.profile() == null ? null : "profile", request.spec() == null ? null : "spec")
                .filter(Objects::nonNull).toList();
        if (given.size() > 1) {
            throw new InvalidRequestException(List.of(new FieldError(given.get(1), "give one of packages, profile or "
                    + "spec, not " + String.join(" and ", given))), false);
        }
        String language = request.language() == null ? "bash" : request.language();
        String code = NOTHING.get(language);
        if (code == null) {
            throw new InvalidRequestException(List.of(new FieldError("language", "unknown language '"
                    + language.substring(0, Math.min(language.length(), 40)) + "'; known: "
                    + NOTHING.keySet().stream().sorted().collect(Collectors.joining(", ")))), false);
        }
        Submission submission;
        if (request.profile() != null) {
            submission = profiles.apply(caller, request.profile(), marked(ExecutionRequest.of(language, code)),
                    Optional.empty());
        } else if (request.spec() != null) {
            Spec spec = specs.check("spec.", request.spec(), tenants.policy(caller.tenantId()));
            submission = marked(new ExecutionRequest(language, code, spec.packages(), spec.env(), "", Optional.empty(),
                    spec.network()));
        } else {
            submission = marked(new ExecutionRequest(language, code, catalog.resolve(request.packages()), Map.of(), "",
                    Optional.empty(), false));
        }
        JobView job = waits.submit(caller, submission, null, wait).job();
        return EnvironmentBuild.of(job);
    }

    /** {@code run} as a build ahead of use: a job of its own whose metadata marks it as a build. */
    private static Submission marked(ExecutionRequest run) {
        return new Submission(run, OutputEncoding.UTF_8, Map.of(MARK, true), Optional.empty(), List.of(), JobFiles.NONE,
                Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The caller's tenant's build by id; 404 for anything else, a job that is no build included. */
    public EnvironmentBuild get(Caller caller, UUID id, Duration wait) {
        JobView job = wait.isPositive() ? waits.await(caller, id, wait) : reads.get(caller, id);
        if (job.metadata() == null || !Boolean.TRUE.equals(job.metadata().get(MARK))) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no environment build " + id);
        }
        return EnvironmentBuild.of(job);
    }
}

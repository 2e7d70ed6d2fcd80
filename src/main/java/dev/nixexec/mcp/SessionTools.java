package dev.nixexec.mcp;

import static dev.nixexec.mcp.ToolErrors.refusalsAsErrors;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.JobView;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.session.SessionExec;
import dev.nixexec.session.SessionRequest;
import dev.nixexec.session.SessionService;
import dev.nixexec.session.SessionView;
import dev.nixexec.tenant.Caller;
import io.quarkiverse.mcp.server.Cancellation;
import io.quarkiverse.mcp.server.McpLog;
import io.quarkiverse.mcp.server.Progress;
import io.quarkiverse.mcp.server.RawMessage;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolGuardrails;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.RunOnVirtualThread;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Session tools, thin over {@link SessionService} as {@code /v1/sessions} is: create one (waiting
 * for its build), run commands in it, list and destroy them. Refusals become one-line
 * {@code isError} results.
 */
public class SessionTools {

    static final String SESSION = "The session's id or name.";

    private final SessionService sessions;
    private final JobTools jobTools;
    private final NixExecConfig config;
    private final SecurityIdentity identity;
    private final KeyLimits limits;
    private final KnownArguments knownArguments;

    public SessionTools(SessionService sessions, JobTools jobTools, NixExecConfig config, SecurityIdentity identity,
            KeyLimits limits, KnownArguments knownArguments) {
        this.sessions = sessions;
        this.jobTools = jobTools;
        this.config = config;
        this.identity = identity;
        this.limits = limits;
        this.knownArguments = knownArguments;
    }

    @Tool(name = "create_session", description = "Create a session: a sandbox that lives between commands, its Nix "
            + "environment built once from packages or a profile (strict, offline-review, build-install, debug-network), "
            + "its /workspace, /home/sandbox and /cache kept between commands. Waits for the build; then run commands "
            + "with exec_in_session.",
            outputSchema = @Tool.OutputSchema(from = SessionView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = false, idempotentHint = false,
                    openWorldHint = false))
    @RunOnVirtualThread
    ToolResponse create(@ToolArg(description = "Nix packages (nixpkgs attribute names), e.g. git, jq, python3; "
                    + "always there: bash and the everyday tools (coreutils, findutils, grep, sed, awk, diff, tar, "
                    + "gzip); a member of a language's set (python3Packages.numpy) comes with its interpreter.",
                    required = false) List<String> packages,
            @ToolArg(description = "A profile instead of packages.", required = false) String profile,
            @ToolArg(description = "off or full (needs a tenant policy that allows it).", required = false) String network,
            @ToolArg(description = "Environment variables of every command, name to value.", required = false)
            Map<String, String> env,
            @ToolArg(description = "A name to use instead of the id.", required = false) String name,
            @ToolArg(description = "The agent the session is for.", required = false) String agent,
            @ToolArg(description = "What the session is for.", required = false) String description,
            @ToolArg(name = "idle_ttl", description = "Seconds without a command after which the session is destroyed; "
                    + "omitted: the service default.", required = false) Integer idleTtl,
            RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            Caller caller = CallerIdentity.writer(identity, "create_session");
            SessionView session;
            try (KeyLimits.Wait held = limits.startWait(caller)) {
                session = sessions.create(caller, new SessionRequest(packages, profile, null, network, env, name, agent,
                        description, Optional.ofNullable(idleTtl).map(Duration::ofSeconds), null), config.mcp().runWait());
            }
            return new ToolResponse(session.status().equals("failed"), List.of(new TextContent(text(session))), session,
                    null);
        });
    }

    @ToolGuardrails(input = ArgumentShapes.class)
    @Tool(name = "exec_in_session", description = "Run a command in a session and wait for it: command as an argv "
            + "(run from the session's PATH, no shell), or code (a bash script, or in language). Returns the exit code, "
            + "stdout and stderr; if it runs longer than the wait, the job id to pass to get_job with the output so far.",
            outputSchema = @Tool.OutputSchema(from = JobView.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = false,
                    openWorldHint = true))
    @RunOnVirtualThread
    ToolResponse exec(@ToolArg(description = SESSION) String session,
            @ToolArg(description = "The program and its arguments, e.g. [\"git\", \"status\"].", required = false)
            List<String> command,
            @ToolArg(description = "A script to run instead of command.", required = false) String code,
            @ToolArg(description = "The language of code; omitted: bash.", required = false) String language,
            @ToolArg(description = "Text fed to standard input.", required = false) String stdin,
            @ToolArg(description = "Wall-clock limit in seconds; omitted: the service default.", required = false)
            Integer timeout,
            Progress progress, McpLog log, Cancellation cancellation, RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            CallerIdentity.writer(identity, "exec_in_session");
            SessionExec exec = new SessionExec(command, code == null ? null : Optional.ofNullable(language).orElse("bash"),
                    code, stdin, Map.of(), Optional.ofNullable(timeout).map(Duration::ofSeconds));
            return jobTools.followed(id -> sessions.exec(caller(), session, exec, id), progress, log, cancellation);
        });
    }

    @Tool(name = "list_sessions", description = "Your tenant's live sessions: id, name, status, packages, and when "
            + "each expires.",
            outputSchema = @Tool.OutputSchema(from = Listing.class, generator = JsonOutputSchema.class),
            annotations = @Tool.Annotations(readOnlyHint = true, destructiveHint = false, idempotentHint = true,
                    openWorldHint = false))
    ToolResponse list(RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            List<SessionView> all = sessions.list(caller());
            return new ToolResponse(false, List.of(new TextContent(all.isEmpty() ? "No sessions."
                    : all.stream().map(SessionTools::text).collect(Collectors.joining("\n")))), new Listing(all), null);
        });
    }

    /** The structured content of {@code list_sessions}. */
    public record Listing(List<SessionView> sessions) {
    }

    @Tool(name = "destroy_session", description = "Destroy a session: its running commands are cancelled and its "
            + "files deleted.",
            annotations = @Tool.Annotations(readOnlyHint = false, destructiveHint = true, idempotentHint = true,
                    openWorldHint = false))
    ToolResponse destroy(@ToolArg(description = SESSION) String session, RawMessage message) {
        return refusalsAsErrors(() -> {
            knownArguments.check(message);
            sessions.destroy(CallerIdentity.writer(identity, "destroy_session"), session);
            return ToolResponse.success("Session " + session + " destroyed.");
        });
    }

    static String text(SessionView s) {
        return "Session " + (s.name() == null ? "" : s.name() + " ") + s.id() + ": " + s.status()
                + (s.packages().isEmpty() ? "" : ", packages " + String.join(" ", s.packages()))
                + (s.profile() == null ? "" : ", profile " + s.profile()) + ", network " + s.network()
                + (s.error() == null ? "" : ", error: " + s.error())
                + (s.status().equals("destroyed") ? "" : ", expires " + s.expiresAt());
    }

    private Caller caller() {
        return CallerIdentity.caller(identity);
    }
}

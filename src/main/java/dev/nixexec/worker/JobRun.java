package dev.nixexec.worker;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionEvent;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.refusal.InvalidRequestException;

import dev.nixexec.config.HostWorkspaces;
import dev.nixexec.job.ClaimedJob;
import dev.nixexec.logging.JobLogContext;
import dev.nixexec.job.LiveOutput;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.job.Outcome;
import dev.nixexec.job.PendingSubmission;
import dev.nixexec.job.Submission;
import dev.nixexec.sandbox.OutputCapture;
import dev.nixexec.sandbox.StreamName;
import dev.nixexec.session.SessionRuns;
import dev.nixexec.workspace.StoreBack;
import dev.nixexec.workspace.WorkspaceProblem;
import dev.nixexec.workspace.WorkspaceRun;
import dev.nixexec.workspace.WorkspaceRuns;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * One claimed job run end to end on this node: the engine's events become the job's events and
 * result. A cancel kills the sandbox and ends the job {@code cancelled} with the output so far.
 */
final class JobRun {

    private static final Logger LOG = Logger.getLogger(JobRun.class);
    private static final int FLUSH_CHARS = 64 * 1024;
    private static final long FLUSH_INTERVAL_MS = 100;

    /** Makes runs; a bean so runs get the engine, the queue and the transitions. */
    @ApplicationScoped
    static class Factory {
        private final ExecutionEngine engine;
        private final LiveOutput queue;
        private final JobTransitions transitions;
        private final HostWorkspaces hostWorkspaces;
        private final ResultWriter results;
        private final WorkspaceRuns workspaces;
        private final SessionRuns sessions;

        Factory(ExecutionEngine engine, LiveOutput queue, JobTransitions transitions, HostWorkspaces hostWorkspaces,
                ResultWriter results, WorkspaceRuns workspaces, SessionRuns sessions) {
            this.workspaces = workspaces;
            this.sessions = sessions;
            this.engine = engine;
            this.queue = queue;
            this.transitions = transitions;
            this.hostWorkspaces = hostWorkspaces;
            this.results = results;
        }

        JobRun create(ClaimedJob job, String nodeId, Consumer<JobRun> whenDone, Optional<PendingSubmission> pending) {
            return new JobRun(this, job, nodeId, whenDone, pending);
        }
    }

    private final Factory deps;
    private final ClaimedJob job;
    private final String nodeId;
    /** Told once the run ended, with the run: another run of its job may have followed it on this node. */
    private final Consumer<JobRun> whenDone;
    /** The submission, when the run started before it committed (see PendingSubmission). */
    private final Optional<PendingSubmission> submission;
    private final AtomicReference<Cancellable> subscription = new AtomicReference<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile Stop stopReason;

    /** Why a run was stopped from outside. */
    private enum Stop {
        CANCELLED, SHUTDOWN, WORKSPACE
    }
    /** Why the workspace watcher stopped the run, when it did. */
    private volatile WorkspaceProblem workspaceProblem;
    /** Unflushed output: stream id and text, consecutive text of one stream merged. */
    private final List<Map.Entry<String, StringBuilder>> pending = new ArrayList<>();
    /** Not a monitor: a virtual thread blocked in it must not pin its carrier (JDK 21). */
    private final ReentrantLock storing = new ReentrantLock();
    private int pendingChars;
    private OutputCapture stdout;
    private OutputCapture stderr;
    /** The job's materialised /workspace, when it has files. */
    private volatile Optional<WorkspaceRun> workspace = Optional.empty();
    /** The session the job runs in, when it does. */
    private volatile Optional<SessionRuns.Context> session = Optional.empty();
    /**
     * The revision this node's environment is on, when the run was called off before its code
     * started because the job must run on another: its session's, or the original's of a rerun.
     */
    private volatile String otherRevision;

    private JobRun(Factory deps, ClaimedJob job, String nodeId, Consumer<JobRun> whenDone,
            Optional<PendingSubmission> pending) {
        this.deps = deps;
        this.submission = pending;
        this.job = job;
        this.nodeId = nodeId;
        this.whenDone = whenDone;
    }

    UUID jobId() {
        return job.id();
    }

    void start() {
        Thread.ofVirtual().name("job-" + job.id()).start(JobLogContext.around(job.id(), job.tenantId(), this::run));
    }

    /** The tenant asked to cancel. */
    void cancel() {
        JobLogContext.around(job.id(), job.tenantId(), () -> stop(Stop.CANCELLED)).run();
    }

    /** The node is shutting down and cannot wait for this job any longer. */
    void abandon() {
        JobLogContext.around(job.id(), job.tenantId(), () -> stop(Stop.SHUTDOWN)).run();
    }

    private void stop(Stop reason) {
        stopReason = reason;
        Cancellable running = subscription.get();
        if (running != null) {
            running.cancel();
            endStopped();
        }
    }

    private void run() {
        Submission asked = job.submission();
        ExecutionEngine.ValidatedRequest request;
        try {
            request = deps.engine.validate(asked.run());
            // the tenant's caps as of the claim: a limit the job asked for was within them at intake (this
            // only matters if the policy tightened since); one it left out takes the smaller of default and cap
            request = request.withLimits(job.policy().narrow(request.limits()));
            if (asked.hostWorkspace().isPresent()) {
                Optional<Path> checked = asked.hostWorkspace().flatMap(deps.hostWorkspaces::permit);
                if (checked.isEmpty()) {
                    end(Outcome.error("workspace_refused", "the host directory " + asked.hostWorkspace().get()
                            + " may not be mounted on this node (local mode, allowed prefixes only)"));
                    return;
                }
                request = request.withHostWorkspace(checked.get());
            }
            if (!asked.hostMounts().isEmpty()) {
                try {
                    deps.hostWorkspaces.recheck(asked.hostMounts());
                } catch (HostWorkspaces.Refused e) {
                    end(Outcome.error("workspace_refused", e.field() + ": " + e.getMessage()));
                    return;
                }
                request = request.withHostMounts(asked.hostMounts());
            }
            if (asked.session().isPresent()) {
                session = deps.sessions.context(asked.session().get());
                if (session.isEmpty()) {
                    end(Outcome.error("session_gone", "the job's session " + asked.session().get()
                            + " was destroyed before the job ran"));
                    return;
                }
            }
            if (job.hasFiles()) {
                workspace = deps.workspaces.prepare(job.id(), job.attempt(), nodeId, job.tenantId(), request.limits());
            } else if (session.isEmpty() && asked.hostWorkspace().isEmpty()) {
                // artifacts default to out/ for every job, so a plain job's /workspace outlives its sandbox too
                workspace = Optional.of(deps.workspaces.prepareEmpty(job.id(), job.attempt(), nodeId, job.tenantId(),
                        request.limits()));
            }
            if (workspace.isPresent() && session.isPresent()) {
                request = request.withPersistentPaths(deps.sessions.paths(workspace.get().dir(), session.get()));
            } else if (workspace.isPresent()) {
                request = request.withMaterialisedWorkspace(workspace.get().dir());
            }
        } catch (WorkspaceRuns.Refused e) {
            end(Outcome.error(e.code(), e.getMessage()));
            return;
        } catch (InvalidRequestException e) {
            end(Outcome.error("invalid_request", e.getMessage()));
            return;
        } catch (java.io.IOException | RuntimeException e) {
            LOG.errorf(e, "job %s could not be prepared", job.id());
            end(Outcome.error("internal_error", String.valueOf(e.getMessage())));
            return;
        }
        if (stopReason != null) {
            // stopped while it was prepared: nothing to build or start
            endStopped();
            return;
        }
        stdout = new OutputCapture(request.limits().maxOutputBytes());
        stderr = new OutputCapture(request.limits().maxOutputBytes());
        Thread.ofVirtual().name("output-" + job.id()).start(this::flushWhileRunning);
        workspace.ifPresent(w -> w.watch(problem -> {
            workspaceProblem = problem;
            stop(Stop.WORKSPACE);
        }));
        subscription.set(deps.engine.execute(request, this::mayBuild, this::beforeRun).subscribe().with(JobLogContext.around(job.id(), job.tenantId(), this::onEvent), failure -> {
            LOG.errorf(failure, "job %s failed in the engine", job.id());
            end(Outcome.error("internal_error", String.valueOf(failure.getMessage())));
        }));
        if (stopReason != null) {
            subscription.get().cancel();
            endStopped();
        }
    }

    /**
     * An environment is built only for a job stored as this node's (a refused submission must not
     * cost a build) and not stopped meanwhile: asked by the cache when it would build.
     */
    private boolean mayBuild() {
        return stored() && stopReason == null;
    }

    private boolean beforeRun(ExecutionResult.EnvironmentInfo environment) {
        // after the verdict, which a stop may have come before
        if (!stored() || stopReason != null) {
            return false;
        }
        Optional<String> required = requiredRevision();
        if (required.isPresent() && !required.get().equals(environment.nixpkgsRevision())) {
            // a session's commands all run on the nixpkgs its environment was built on, a rerun on its original's
            otherRevision = environment.nixpkgsRevision();
            return false;
        }
        boolean mine = deps.transitions.start(job.id(), job.attempt(), nodeId, environment.storePath(), environment.nixpkgsRevision(),
                environment.cacheHit(), environment.buildMs());
        started.set(mine);
        return mine;
    }

    private void onEvent(ExecutionEvent event) {
        switch (event) {
            case ExecutionEvent.Output output -> {
                (output.stream() == StreamName.STDOUT ? stdout : stderr).append(output.data(), 0, output.data().length);
                buffer(output.stream().id(), new String(output.data(), StandardCharsets.UTF_8));
            }
            case ExecutionEvent.Finished finished -> finish(finished.result());
        }
    }

    private void finish(ExecutionResult r) {
        // not_built: mayBuild said no (not stored here, or stopped), so the end is the stop's or none
        if (r.error().isPresent() && List.of("not_started", "not_built").contains(r.error().get().code())) {
            if (otherRevision != null && stopReason == null) {
                end(Outcome.error("nixpkgs_changed", session.isPresent()
                        ? "the session was built on nixpkgs " + requiredRevision().orElseThrow() + ", this node now pins "
                                + otherRevision + "; create a new session"
                        : "the job reruns one that ran on nixpkgs " + requiredRevision().orElseThrow()
                                + ", this node now pins " + otherRevision + "; submit it as a new job"));
                return;
            }
            endStopped();
            return;
        }
        end(Outcome.of(r), exact(r.stdout(), r.stderr()));
    }

    /** The nixpkgs revision the job must run on: its session's, or for a rerun its original's; none: any. */
    private Optional<String> requiredRevision() {
        return session.flatMap(SessionRuns.Context::nixpkgsRevision).or(job::requiredNixpkgsRevision);
    }

    /** For a base64 job, the kept output's exact bytes as the outcome's text shows them; else none. */
    private JobTransitions.ExactOutput exact(OutputCapture.Captured out, OutputCapture.Captured err) {
        return job.submission().encoding() == OutputEncoding.BASE64 ? new JobTransitions.ExactOutput(out.bytes(), err.bytes()) : null;
    }

    /** Ended from outside: cancelled by the tenant, or abandoned by a node shutting down. */
    private void endStopped() {
        OutputCapture.Captured out = stdout == null ? OutputCapture.Captured.empty() : stdout.result();
        OutputCapture.Captured err = stderr == null ? OutputCapture.Captured.empty() : stderr.result();
        end(stopped(out, err), exact(out, err));
    }

    private Outcome stopped(OutputCapture.Captured out, OutputCapture.Captured err) {
        return switch (stopReason) {
            case SHUTDOWN -> Outcome.shutDown(out, err);
            case WORKSPACE -> Outcome.workspaceStopped(out, err, workspaceProblem.quota(), workspaceProblem.code(),
                    workspaceProblem.message());
            // cancelled, or none: the start was refused (the job is no longer this node's run, or its cancel was asked)
            case null, default -> Outcome.cancelled(out, err);
        };
    }

    /**
     * Output waits here until 64 KiB gather or the flusher's next tick, so code that prints a byte at
     * a time costs a database write per tick, not per byte.
     */
    private void buffer(String stream, String text) {
        boolean full;
        synchronized (this) {
            int last = pending.size() - 1;
            if (last >= 0 && pending.get(last).getKey().equals(stream)) {
                pending.get(last).getValue().append(text);
            } else {
                pending.add(Map.entry(stream, new StringBuilder(text)));
            }
            pendingChars += text.length();
            full = pendingChars >= FLUSH_CHARS;
        }
        if (full) {
            flush();
        }
    }

    /** Takes and stores what is pending; {@link #storing} keeps chunks in the order they were taken. */
    private void flush() {
        storing.lock();
        try {
            List<JobTransitions.Chunk> chunks = takePending();
            if (chunks.isEmpty()) {
                return;
            }
            try {
                deps.queue.output(job.id(), nodeId, job.attempt(), chunks);
            } catch (RuntimeException e) {
                LOG.warnf("could not store output of job %s for live followers: %s", job.id(), e.getMessage());
            }
        } finally {
            storing.unlock();
        }
    }

    private synchronized List<JobTransitions.Chunk> takePending() {
        List<JobTransitions.Chunk> chunks = pending.stream()
                .map(e -> new JobTransitions.Chunk(e.getKey(), e.getValue().toString())).toList();
        pending.clear();
        pendingChars = 0;
        return chunks;
    }

    private void flushWhileRunning() {
        while (!ended.get()) {
            try {
                Thread.sleep(FLUSH_INTERVAL_MS);
            } catch (InterruptedException e) {
                return;
            }
            flush();
        }
    }

    private void end(Outcome ending) {
        end(ending, null);
    }

    /** Whether the job is stored as this node's: at once, unless the run started before its submission committed. */
    private boolean stored() {
        return submission.map(PendingSubmission::awaitStored).orElse(true);
    }

    /** Ends the job once (the first ending wins), with its output's exact bytes for a base64 job. */
    private void end(Outcome ending, JobTransitions.ExactOutput exact) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        Outcome outcome = ending;
        try {
            boolean mine = stored();
            if (workspace.isPresent()) {
                if (stopReason != null) {
                    workspace.get().abandon();
                } else if (!mine) {
                    // its code never started (the gate waits for the verdict): nothing to keep
                    workspace.get().finish(false);
                } else if (workspace.get().finish(outcome.codeRanToAnEnd()) instanceof StoreBack.Refused refused) {
                    outcome = outcome.asError(refused.code(), refused.message());
                }
            }
            if (!mine) {
                // the submission did not store the job as this node's: nothing of the run is to be written
                return;
            }
            // Given back when it never started; "started" may have committed while the stop came
            // (the gate and the shutdown raced), and then nothing is given back: the end is written.
            boolean givenBack = false;
            if (stopReason == Stop.SHUTDOWN && !started.get()) {
                flush();
                givenBack = deps.transitions.giveBack(job.id(), nodeId);
            }
            if (!givenBack) {
                // The last output goes with the result: one transaction, one wake-up for followers.
                storing.lock();
                try {
                    deps.results.write(nodeId, new JobTransitions.Finish(job.id(), job.attempt(), outcome, takePending(),
                            exact));
                } finally {
                    storing.unlock();
                }
            }
            // after the write, which a waiting caller's answer waits for, not before
            LOG.infof("job %s ended %s", job.id(), outcome.status().id());
        } catch (RuntimeException e) {
            LOG.errorf(e, "could not store the end of job %s; the reaper will take it back", job.id());
        } finally {
            whenDone.accept(this);
        }
    }
}

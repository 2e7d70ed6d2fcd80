package dev.nixexec.nix;

import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Whether nix can reach its store right now ({@code nix store ping}, bounded by a timeout): a
 * failing or hanging nix (a stopped daemon, a broken store) shows in readiness, not only in the
 * errors of the next builds. Job failures are not counted, so no tenant can make a node look
 * unready by asking for broken packages. Probed every few seconds in the background; a probe that
 * has not answered for {@link #SLOW} already counts as down.
 */
@ApplicationScoped
public class NixStoreProbe {

    private static final Logger LOG = Logger.getLogger(NixStoreProbe.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration SLOW = Duration.ofSeconds(5);

    /** An answer: {@code detail} is "ok" or why not. */
    public record Answer(boolean ok, String detail) {
    }

    private final NixCommand nix;
    private volatile Answer last;
    /** System.nanoTime when the probe in flight began; 0 when none is. */
    private volatile long probingSince;

    public NixStoreProbe(NixCommand nix) {
        this.nix = nix;
    }

    /** The last answer, or down when the probe in flight is taking too long; the first call probes. */
    public Answer current() {
        long since = probingSince;
        if (since != 0 && System.nanoTime() - since > SLOW.toNanos()) {
            return new Answer(false, "nix store ping has not answered for "
                    + Duration.ofNanos(System.nanoTime() - since).toSeconds() + " s");
        }
        Answer answer = last;
        if (answer == null) {
            probe();
            answer = last;
        }
        return answer;
    }

    @Scheduled(every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void probe() {
        if (!nix.available()) {
            return;
        }
        probingSince = System.nanoTime();
        try {
            Answer answer = ask();
            if (!answer.ok() && (last == null || last.ok())) {
                LOG.warn(answer.detail());
            }
            last = answer;
        } finally {
            probingSince = 0;
        }
    }

    private Answer ask() {
        try {
            NixInvocation.Outcome outcome = NixInvocation.run(nix.nix("store", "ping"), Path.of("/"), TIMEOUT);
            if (outcome.timedOut()) {
                return new Answer(false, "nix store ping did not answer within " + TIMEOUT.toSeconds() + " s");
            }
            if (outcome.exitCode() != 0) {
                return new Answer(false, "nix store ping failed: " + lastLine(outcome.stderrTail()));
            }
            return new Answer(true, "ok");
        } catch (EnvironmentException e) {
            return new Answer(false, e.getMessage());
        } catch (IOException e) {
            return new Answer(false, "cannot run nix: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(false, "interrupted while asking nix");
        }
    }

    private static String lastLine(String text) {
        String trimmed = text.strip();
        int newline = trimmed.lastIndexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(newline + 1);
    }
}

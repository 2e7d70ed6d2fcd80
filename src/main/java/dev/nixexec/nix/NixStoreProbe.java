package dev.nixexec.nix;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Whether nix can reach its store right now ({@code nix store ping}, bounded by a timeout): a
 * failing or hanging nix (a stopped daemon, a broken store) shows in readiness, not only in the
 * errors of the next builds. Job failures are not counted, so no tenant can make a node look
 * unready by asking for broken packages. Probed in the background, at most every
 * {@link #MAX_AGE}; readiness reads the last answer.
 */
@ApplicationScoped
public class NixStoreProbe {

    private static final Logger LOG = Logger.getLogger(NixStoreProbe.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MAX_AGE = Duration.ofSeconds(15);

    /** The last answer: {@code detail} is "ok" or why not. */
    public record Answer(boolean ok, String detail, long atNanos) {
    }

    private final NixCommand nix;
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile Answer last;

    public NixStoreProbe(NixCommand nix) {
        this.nix = nix;
    }

    /** The last answer, probing now (and waiting for it) only if there has been none yet. */
    public Answer current() {
        Answer answer = last;
        if (answer == null) {
            answer = ask();
            last = answer;
            return answer;
        }
        if (System.nanoTime() - answer.atNanos() > MAX_AGE.toNanos() && probing.compareAndSet(false, true)) {
            Thread.ofVirtual().name("nix-store-probe").start(() -> {
                try {
                    last = ask();
                } finally {
                    probing.set(false);
                }
            });
        }
        return answer;
    }

    private Answer ask() {
        try {
            NixInvocation.Outcome outcome = NixInvocation.run(nix.nix("store", "ping"), Path.of("/"), TIMEOUT);
            Answer answer;
            if (outcome.timedOut()) {
                answer = new Answer(false, "nix store ping did not answer within " + TIMEOUT.toSeconds() + " s", System.nanoTime());
            } else if (outcome.exitCode() != 0) {
                answer = new Answer(false, "nix store ping failed: " + lastLine(outcome.stderrTail()), System.nanoTime());
            } else {
                answer = new Answer(true, "ok", System.nanoTime());
            }
            if (!answer.ok() && (last == null || last.ok())) {
                LOG.warn(answer.detail());
            }
            return answer;
        } catch (EnvironmentException e) {
            return new Answer(false, e.getMessage(), System.nanoTime());
        } catch (IOException e) {
            return new Answer(false, "cannot run nix: " + e.getMessage(), System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(false, "interrupted while asking nix", System.nanoTime());
        }
    }

    private static String lastLine(String text) {
        String trimmed = text.strip();
        int newline = trimmed.lastIndexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(newline + 1);
    }
}

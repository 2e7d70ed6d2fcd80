package dev.nixexec.mcp;

import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobReads;
import dev.nixexec.tenant.Caller;
import java.util.List;
import java.util.UUID;

/**
 * What a job that has not ended printed so far (its row holds its output only once it ends): the
 * last {@link #TAIL_CHARS} characters of each stream from its events, for a "still running"
 * answer. The tail, because an agent polling a long job wants to know where it has got to.
 */
final class OutputSoFar {

    static final int TAIL_CHARS = 16_384;

    private final Tail stdout = new Tail();
    private final Tail stderr = new Tail();

    /** The output events of the job from its first, read now. */
    static OutputSoFar read(JobReads reads, Caller caller, UUID jobId) {
        OutputSoFar output = new OutputSoFar();
        int seq = 0;
        for (List<JobEvents.Event> page = reads.events(caller, jobId, seq); !page.isEmpty();
                page = reads.events(caller, jobId, seq)) {
            for (JobEvents.Event event : page) {
                output.add(event);
                seq = event.seq();
            }
        }
        return output;
    }

    /** Keeps a {@code stdout} or {@code stderr} event's text; any other event is not output. */
    synchronized void add(JobEvents.Event event) {
        switch (event.kind()) {
            case "stdout" -> stdout.append(event.data());
            case "stderr" -> stderr.append(event.data());
            default -> { }
        }
    }

    synchronized String text() {
        return "--- stdout so far ---\n" + stdout.text("stdout") + "--- stderr so far ---\n" + stderr.text("stderr");
    }

    /** The last characters of one stream, and how many there were in all. */
    private static final class Tail {
        private final StringBuilder kept = new StringBuilder();
        private long total;

        void append(String data) {
            total += data.length();
            kept.append(data);
            if (kept.length() > TAIL_CHARS) {
                kept.delete(0, kept.length() - TAIL_CHARS);
            }
        }

        String text(String stream) {
            if (total == 0) {
                return "";
            }
            String shown = kept.charAt(kept.length() - 1) == '\n' ? kept.toString() : kept + "\n";
            return total > kept.length()
                    ? "[" + stream + " so far: " + total + " characters, the last " + kept.length() + " here]\n" + shown
                    : shown;
        }
    }
}

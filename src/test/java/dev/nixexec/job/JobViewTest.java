package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What a page shows of a job's output, whatever the encoding the job asked for. */
class JobViewTest {

    private static JobView job(String encoding, String stdout, String stderr) {
        return new JobView(UUID.randomUUID(), "succeeded", "bash", List.of(), Map.of(), null, null, null, 0, null,
                false, null, 1L, stdout, stderr, 0, 0, false, false, null, null, 1, "n", List.of(), null, null, List.of(),
                encoding, null, null, null);
    }

    @Test
    void base64OutputIsShownAsTextWithNulAndOtherBytesAsReplacementCharacters() {
        // "A", 0xff, NUL, "Z" and "é" in UTF-8
        JobView job = job("base64", "Qf8AWsOp", null);
        assertEquals("A\uFFFD\uFFFDZé", job.stdoutText());
        assertEquals(null, job.stderrText());
    }

    @Test
    void textOutputIsShownAsItIs() {
        JobView job = job("utf-8", "Qf8AWsOp", "x");
        assertEquals("Qf8AWsOp", job.stdoutText());
        assertEquals("x", job.stderrText());
    }
}

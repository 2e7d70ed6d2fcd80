package dev.nixexec.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.nixexec.refusal.InvalidRequestException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parts of sessions with no I/O: the expiry's decision and an argv as the line that execs it. */
class SessionUnitTest {

    @Test
    void anExpiredSessionWithAJobStillUnfinishedIsKeptAnyOtherDestroyed() {
        assertEquals(IdleSession.Verdict.KEEP, new IdleSession(null, 1).verdict());
        assertEquals(IdleSession.Verdict.DESTROY, new IdleSession(null, 0).verdict());
    }

    /** The line is run by a real bash: each word reaches the program as given, nothing expanded. */
    @Test
    void anArgvIsExecdWordForWordByBash(@TempDir Path dir) throws Exception {
        List<String> argv = List.of("printf", "%s|", "$HOME", "it's", "`id`", "*", "a b", "\n", "'\\''");
        Path script = Files.writeString(dir.resolve("main.sh"), SessionService.commandScript(argv));
        Process bash = new ProcessBuilder("bash", script.toString()).directory(dir.toFile()).start();
        assertEquals(true, bash.waitFor(10, TimeUnit.SECONDS));
        String out = new String(bash.getInputStream().readAllBytes());
        List<String> words = new ArrayList<>(argv.subList(2, argv.size()));
        assertEquals(String.join("|", words) + "|", out);
    }

    @Test
    void anEmptyArgvOrANulIsRefused() {
        assertThrows(InvalidRequestException.class, () -> SessionService.commandScript(List.of()));
        assertThrows(InvalidRequestException.class, () -> SessionService.commandScript(List.of("echo", "a\0b")));
        assertThrows(InvalidRequestException.class, () -> SessionService.commandScript(List.of("")));
    }
}

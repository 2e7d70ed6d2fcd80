package dev.nixexec.sandbox;

import java.io.IOException;

/**
 * Where a shell's terminal output goes. A write returns once the bytes are delivered (for a
 * WebSocket: written to the connection), so a reader that does not keep up stops the pump, the
 * terminal's buffer fills and the shell's own writes block: nothing buffers without bound.
 */
@FunctionalInterface
public interface ShellOutput {

    void write(byte[] bytes) throws IOException;
}

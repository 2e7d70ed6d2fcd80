package dev.nixexec.cli;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Bytes that arrive in pieces (the frames of {@code enter}'s WebSocket) as text: a character
 * split across two pieces comes out whole with the second, not as two replacements. Bytes that
 * are not UTF-8 come out as U+FFFD, as in a job's output events (docs/cli.md, "--json").
 */
final class Utf8Stream {

    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0);

    /** The text of {@code piece} and of what the previous pieces left, up to an unfinished character. */
    String decode(ByteBuffer piece) {
        ByteBuffer input = ByteBuffer.allocate(pending.remaining() + piece.remaining()).put(pending).put(piece).flip();
        CharBuffer text = CharBuffer.allocate((int) (input.remaining() * (double) decoder.maxCharsPerByte()) + 1);
        decoder.decode(input, text, false);
        // at most the first three bytes of a character are left over
        pending = ByteBuffer.allocate(input.remaining()).put(input).flip();
        return text.flip().toString();
    }

    /** What the last piece left unfinished, as U+FFFD: the stream has ended. */
    String end() {
        CharBuffer text = CharBuffer.allocate(pending.remaining() + 2);
        decoder.decode(pending, text, true);
        decoder.flush(text);
        decoder.reset();
        pending = ByteBuffer.allocate(0);
        return text.flip().toString();
    }
}

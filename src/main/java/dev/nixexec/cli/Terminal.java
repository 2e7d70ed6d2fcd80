package dev.nixexec.cli;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The command's own standard streams, as bytes in UTF-8: what a program's output is written to. */
record Terminal(InputStream in, PrintStream out, PrintStream err) {

    static Terminal ofProcess() {
        return new Terminal(new FileInputStream(FileDescriptor.in),
                new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8),
                new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }
}

package dev.nixexec.workspace;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** A workspace's version and the files that make it up (path to entry, by path), read together. */
record Manifest(int version, Map<String, FileEntry> files) {

    Manifest {
        files = Collections.unmodifiableSortedMap(new TreeMap<>(files));
    }
}

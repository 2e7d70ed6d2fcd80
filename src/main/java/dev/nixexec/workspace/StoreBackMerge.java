package dev.nixexec.workspace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The three-way merge of a store-back, without I/O: the version a run started from (base), the
 * files the run left (mine) and the workspace as it is when the changes are stored (current).
 * A run's change is a path it created, modified (content or executable bit) or deleted against
 * its base. The changes land on the current version unless another job or upload changed one of
 * the same paths since the base, or the two together would make one path both a file and a
 * folder: then nothing lands ({@link Conflict}). Changes to different paths both land.
 */
final class StoreBackMerge {

    static final String CONFLICT = "workspace_conflict";
    /** How many clashing paths a conflict names. */
    private static final int NAMED = 5;

    private StoreBackMerge() {
    }

    /** What a run changed against its base: files written (created or modified) and paths deleted, each by path. */
    record Changes(SortedMap<String, FileEntry> written, List<String> deleted) {

        Changes {
            written = Collections.unmodifiableSortedMap(new TreeMap<>(written));
            deleted = List.copyOf(deleted);
        }

        boolean isEmpty() {
            return written.isEmpty() && deleted.isEmpty();
        }

        /** Every changed path: the written ones, then the deleted ones. */
        List<String> paths() {
            List<String> paths = new ArrayList<>(written.keySet());
            paths.addAll(deleted);
            return paths;
        }
    }

    /** The outcome of a merge. */
    sealed interface Result {
    }

    /**
     * The workspace's files after the merge ({@code files}) and the writes that make them from the
     * current version: {@code written} to insert or replace ({@code created} of them new paths,
     * {@code modified} replacing one), {@code deleted} to remove.
     */
    record Merged(SortedMap<String, FileEntry> files, SortedMap<String, FileEntry> written, List<String> deleted,
            int created, int modified) implements Result {
    }

    /** Nothing of the run may land; {@code message} names why (the job's error message). */
    record Conflict(String message) implements Result {
    }

    /** The run's changes: {@code mine} against {@code base}. */
    static Changes changes(Map<String, FileEntry> base, Map<String, FileEntry> mine) {
        SortedMap<String, FileEntry> written = new TreeMap<>();
        mine.forEach((path, entry) -> {
            if (!entry.equals(base.get(path))) {
                written.put(path, entry);
            }
        });
        List<String> deleted = base.keySet().stream().filter(path -> !mine.containsKey(path)).sorted().toList();
        return new Changes(written, deleted);
    }

    /** The run's {@code changes} against {@code base}, applied to {@code current}. */
    static Result merge(Manifest base, Changes changes, Manifest current) {
        Map<String, FileEntry> before = base.files();
        Map<String, FileEntry> now = current.files();
        // Equal versions have equal files; after another store-back or upload, a path changed on both sides clashes.
        List<String> clashes = changes.paths().stream()
                .filter(path -> !Objects.equals(now.get(path), before.get(path))).toList();
        if (!clashes.isEmpty()) {
            return conflict("another job or upload changed " + String.join(", ", clashes.subList(0,
                    Math.min(NAMED, clashes.size()))) + (clashes.size() > NAMED
                    ? " and " + (clashes.size() - NAMED) + " more" : ""), current.version());
        }
        SortedMap<String, FileEntry> after = new TreeMap<>(now);
        after.putAll(changes.written());
        changes.deleted().forEach(after::remove);
        // The run's own files can never clash (one directory tree); merged with another version's they can.
        Optional<FileFolderClash> clash = FileFolderClash.in(after.keySet());
        if (clash.isPresent()) {
            return conflict("another job or upload made '" + clash.get().folder() + "' a file while this job used '"
                    + clash.get().file() + "' (or the other way round)", current.version());
        }
        int modified = (int) changes.written().keySet().stream().filter(now::containsKey).count();
        return new Merged(after, changes.written(), changes.deleted(), changes.written().size() - modified, modified);
    }

    private static Conflict conflict(String what, int version) {
        return new Conflict(what + " while this job ran; its changes were not stored (the workspace is at version "
                + version + ")");
    }
}

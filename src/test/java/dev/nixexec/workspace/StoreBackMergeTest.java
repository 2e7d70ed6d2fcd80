package dev.nixexec.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.workspace.StoreBackMerge.Changes;
import dev.nixexec.workspace.StoreBackMerge.Conflict;
import dev.nixexec.workspace.StoreBackMerge.Merged;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The store-back's three-way merge (base: the version the run started from; mine: what the run
 * left; current: the workspace when the changes are stored), as docs/workspaces.md promises it:
 * changes to different files both land, a file both sides changed (created, modified, deleted)
 * or a file/folder clash refuses the whole run, the executable bit is part of a file. No I/O.
 */
class StoreBackMergeTest {

    static FileEntry file(String content) {
        return new FileEntry(ContentHash.of(content.getBytes()), content.length(), false);
    }

    static FileEntry tool(String content) {
        return new FileEntry(ContentHash.of(content.getBytes()), content.length(), true);
    }

    static Map<String, FileEntry> files(Object... pathsAndEntries) {
        Map<String, FileEntry> files = new LinkedHashMap<>();
        for (int i = 0; i < pathsAndEntries.length; i += 2) {
            files.put((String) pathsAndEntries[i], (FileEntry) pathsAndEntries[i + 1]);
        }
        return files;
    }

    static StoreBackMerge.Result merge(Manifest base, Map<String, FileEntry> mine, Manifest current) {
        return StoreBackMerge.merge(base, StoreBackMerge.changes(base.files(), mine), current);
    }

    static final Manifest BASE = new Manifest(3, files("keep.txt", file("keep"), "data.csv", file("1,2"),
            "old.log", file("old")));

    @Test
    void aRunThatChangedNothingHasNoChanges() {
        Changes changes = StoreBackMerge.changes(BASE.files(), new LinkedHashMap<>(BASE.files()));
        assertTrue(changes.isEmpty(), changes.toString());
        // the same content under the same path is no change, whatever the order the run's files were found in
        assertTrue(StoreBackMerge.changes(BASE.files(), files("old.log", file("old"), "data.csv", file("1,2"),
                "keep.txt", file("keep"))).isEmpty());
    }

    @Test
    void onAnUnchangedWorkspaceTheRunsFilesBecomeTheWorkspace() {
        Map<String, FileEntry> mine = files("keep.txt", file("keep"), "data.csv", file("1,2,3"),
                "out/plot.png", file("png"));
        Merged merged = assertInstanceOf(Merged.class, merge(BASE, mine, BASE));
        assertEquals(mine, merged.files());
        assertEquals(files("data.csv", file("1,2,3"), "out/plot.png", file("png")), merged.written());
        assertEquals(List.of("old.log"), merged.deleted());
        assertEquals(1, merged.created());
        assertEquals(1, merged.modified());
    }

    @Test
    void aConcurrentChangeOfAnotherFileMerges() {
        // another job or upload changed keep.txt and added notes.md since the run began
        Manifest current = new Manifest(5, files("keep.txt", file("kept by upload"), "data.csv", file("1,2"),
                "old.log", file("old"), "notes.md", file("notes")));
        Map<String, FileEntry> mine = files("keep.txt", file("keep"), "data.csv", file("1,2,3"));
        Merged merged = assertInstanceOf(Merged.class, merge(BASE, mine, current));
        assertEquals(files("keep.txt", file("kept by upload"), "data.csv", file("1,2,3"), "notes.md", file("notes")),
                merged.files());
        assertEquals(List.of("old.log"), merged.deleted());
        assertEquals(0, merged.created());
        assertEquals(1, merged.modified());
    }

    @Test
    void aConcurrentChangeOfTheSameFileIsAConflictNamingIt() {
        Manifest current = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("9,9"),
                "old.log", file("old")));
        Map<String, FileEntry> mine = files("keep.txt", file("keep"), "data.csv", file("1,2,3"),
                "old.log", file("old"));
        Conflict conflict = assertInstanceOf(Conflict.class, merge(BASE, mine, current));
        assertEquals("another job or upload changed data.csv while this job ran; its changes were not stored "
                + "(the workspace is at version 4)", conflict.message());
        assertEquals("workspace_conflict", StoreBackMerge.CONFLICT);
    }

    @Test
    void theSameChangeOnBothSidesIsStillAConflict() {
        // no write is lost silently: the run cannot know the other side meant the same
        Manifest current = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2,3"),
                "old.log", file("old")));
        Map<String, FileEntry> mine = files("keep.txt", file("keep"), "data.csv", file("1,2,3"),
                "old.log", file("old"));
        assertInstanceOf(Conflict.class, merge(BASE, mine, current));
    }

    @Test
    void aFileBothSidesCreatedIsAConflict() {
        Manifest current = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("old"), "new.txt", file("theirs")));
        Map<String, FileEntry> mine = files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("old"), "new.txt", file("mine"));
        Conflict conflict = assertInstanceOf(Conflict.class, merge(BASE, mine, current));
        assertTrue(conflict.message().startsWith("another job or upload changed new.txt while"), conflict.message());
    }

    @Test
    void deletionAgainstChangeIsAConflictEitherWay() {
        // the run deleted old.log, another changed it
        Manifest changedThere = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("appended")));
        Map<String, FileEntry> deletedHere = files("keep.txt", file("keep"), "data.csv", file("1,2"));
        assertTrue(assertInstanceOf(Conflict.class, merge(BASE, deletedHere, changedThere)).message()
                .contains("changed old.log while"));
        // the run changed old.log, another deleted it
        Manifest deletedThere = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2")));
        Map<String, FileEntry> changedHere = files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("appended"));
        assertTrue(assertInstanceOf(Conflict.class, merge(BASE, changedHere, deletedThere)).message()
                .contains("changed old.log while"));
        // both deleted it: a deletion is a change too
        assertInstanceOf(Conflict.class, merge(BASE, deletedHere, deletedThere));
    }

    @Test
    void theExecutableBitIsPartOfTheFile() {
        Map<String, FileEntry> mine = new LinkedHashMap<>(BASE.files());
        mine.put("keep.txt", tool("keep"));
        Changes changes = StoreBackMerge.changes(BASE.files(), mine);
        assertEquals(files("keep.txt", tool("keep")), changes.written(), "a change of the bit alone is a change");
        Merged merged = assertInstanceOf(Merged.class, StoreBackMerge.merge(BASE, changes, BASE));
        assertTrue(merged.files().get("keep.txt").executable());
        assertEquals(1, merged.modified());
        // another side that only set the bit changed the file too
        Manifest bitThere = new Manifest(4, files("keep.txt", tool("keep"), "data.csv", file("1,2"),
                "old.log", file("old")));
        Map<String, FileEntry> editedHere = new LinkedHashMap<>(BASE.files());
        editedHere.put("keep.txt", file("edited"));
        assertInstanceOf(Conflict.class, merge(BASE, editedHere, bitThere));
    }

    @Test
    void aFolderTheRunUsedThatIsNowAFileIsAConflict() {
        // the run wrote a/b; an upload meanwhile made 'a' a file
        Manifest current = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("old"), "a", file("a file")));
        Map<String, FileEntry> mine = new LinkedHashMap<>(BASE.files());
        mine.put("a/b", file("b"));
        Conflict conflict = assertInstanceOf(Conflict.class, merge(BASE, mine, current));
        assertEquals("another job or upload made 'a' a file while this job used 'a/b' (or the other way round) "
                + "while this job ran; its changes were not stored (the workspace is at version 4)", conflict.message());
        // and the other way round: the run made 'a' a file, an upload wrote a/b
        Manifest folderThere = new Manifest(4, files("keep.txt", file("keep"), "data.csv", file("1,2"),
                "old.log", file("old"), "a/b", file("b")));
        Map<String, FileEntry> fileHere = new LinkedHashMap<>(BASE.files());
        fileHere.put("a", file("a file"));
        assertInstanceOf(Conflict.class, merge(BASE, fileHere, folderThere));
    }

    @Test
    void aConflictNamesFiveFilesAndCountsTheRest() {
        Map<String, FileEntry> base = new LinkedHashMap<>();
        Map<String, FileEntry> theirs = new LinkedHashMap<>();
        Map<String, FileEntry> mine = new LinkedHashMap<>();
        IntStream.range(0, 8).forEach(i -> {
            base.put("f" + i, file("base"));
            theirs.put("f" + i, file("theirs"));
            mine.put("f" + i, file("mine"));
        });
        Conflict conflict = assertInstanceOf(Conflict.class,
                merge(new Manifest(1, base), mine, new Manifest(2, theirs)));
        assertTrue(conflict.message().startsWith("another job or upload changed f0, f1, f2, f3, f4 and 3 more while"),
                conflict.message());
    }

    @Test
    void aFileFolderClashIsFoundInAnyList() {
        assertEquals(new FileFolderClash("a", "a/b/c"), FileFolderClash.in(List.of("a/b/c", "x", "a")).orElseThrow());
        assertTrue(FileFolderClash.in(List.of("a/b", "a/c", "ab", "a.txt")).isEmpty());
    }
}

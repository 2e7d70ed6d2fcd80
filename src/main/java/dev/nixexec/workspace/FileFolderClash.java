package dev.nixexec.workspace;

import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A path that is a file while another path of the same list needs it as a folder: such a list
 * cannot be laid out as a directory tree.
 */
record FileFolderClash(String folder, String file) {

    /** The first clash among {@code paths}, if there is one. */
    static Optional<FileFolderClash> in(Collection<String> paths) {
        Set<String> all = paths instanceof Set<String> set ? set : new HashSet<>(paths);
        for (String path : paths) {
            for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
                String folder = path.substring(0, slash);
                if (all.contains(folder)) {
                    return Optional.of(new FileFolderClash(folder, path));
                }
            }
        }
        return Optional.empty();
    }
}

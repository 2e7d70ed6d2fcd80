package dev.nixexec.workspace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * What a job brings besides its code: a workspace (id or name) materialised at /workspace, small
 * input files written there before the code runs, and the paths returned as artifacts (default
 * {@code out}). Empty: the job gets a fresh tmpfs /workspace and returns no artifacts.
 */
public record JobFiles(Optional<String> workspace, List<InputFile> files, List<String> artifacts) {

    /** The default artifact path: files the code writes under /workspace/out/. */
    public static final String OUT = "out";

    public static final JobFiles NONE = new JobFiles(Optional.empty(), List.of(), List.of());

    public JobFiles {
        workspace = workspace == null ? Optional.empty() : workspace;
        // Not List.copyOf: a null element is the caller's mistake, refused with a field error later.
        files = files == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(files));
        artifacts = artifacts == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(artifacts));
    }

    /** One inline input file; {@code encoding} is {@code utf-8} (default) or {@code base64}. */
    public record InputFile(String path, String content, String encoding) {
    }

    public boolean isEmpty() {
        return workspace.isEmpty() && files.isEmpty() && artifacts.isEmpty();
    }
}

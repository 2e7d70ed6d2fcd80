package dev.nixexec.workspace;

import static dev.nixexec.database.JsonColumns.read;
import static dev.nixexec.database.JsonColumns.write;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.tenant.Caller;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The {@link JobFiles} of a job: checked and stored with the job at submission (same
 * transaction), read back by the worker that claims it. Jobs without any have no row.
 */
@ApplicationScoped
public class JobInputs {

    static final int MAX_INPUT_FILES = 1000;
    static final int MAX_ARTIFACT_PATHS = 32;

    /** A job's inputs as its worker needs them. */
    public record Loaded(Optional<UUID> workspace, Map<WorkspacePath, byte[]> files, List<WorkspacePath> artifactRoots) {
    }

    private record StoredFile(String path, String content) {
    }

    private final NixExecConfig config;
    private final WorkspaceRepository repository;
    private final WorkspaceService workspaces;
    private final ObjectMapper json;

    JobInputs(NixExecConfig config, WorkspaceRepository repository, WorkspaceService workspaces, ObjectMapper json) {
        this.config = config;
        this.repository = repository;
        this.workspaces = workspaces;
        this.json = json;
    }

    /** Checks the job's files and stores them with it; throws 400/413/404 (rolling the job back). */
    @Transactional(Transactional.TxType.MANDATORY)
    public void attach(Caller caller, UUID jobId, JobFiles files) {
        if (files.isEmpty()) {
            return;
        }
        Map<WorkspacePath, byte[]> decoded = decode(files);
        List<WorkspacePath> roots = artifactRoots(files);
        String inputs = write(json, decoded.entrySet().stream()
                .map(e -> new StoredFile(e.getKey().value(), Base64.getEncoder().encodeToString(e.getValue()))).toList());
        String artifactPaths = write(json, roots.stream().map(WorkspacePath::value).toList());
        if (files.workspace().isPresent()) {
            workspaces.attach(caller, files.workspace().get(), jobId, inputs, artifactPaths);
            return;
        }
        repository.insertJobFiles(jobId, inputs, artifactPaths);
    }

    /** The job's inputs, if it has any. */
    @Transactional
    public Optional<Loaded> load(UUID jobId) {
        return repository.jobFiles(jobId).map(row -> {
            Map<WorkspacePath, byte[]> files = new java.util.LinkedHashMap<>();
            for (StoredFile f : read(json, row.inputs(), new TypeReference<List<StoredFile>>() { })) {
                files.put(new WorkspacePath(f.path()), Base64.getDecoder().decode(f.content()));
            }
            List<WorkspacePath> roots = read(json, row.artifactPaths(), new TypeReference<List<String>>() { }).stream()
                    .map(WorkspacePath::new).toList();
            return new Loaded(row.workspace(), files, roots);
        });
    }

    /**
     * The job's files as a submission would give them again (its workspace by id, its input files
     * in base64, its artifact paths), for a rerun; none when the job had none.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<JobFiles> submitted(UUID jobId) {
        return repository.jobFiles(jobId).map(row -> new JobFiles(row.workspace().map(UUID::toString),
                read(json, row.inputs(), new TypeReference<List<StoredFile>>() { }).stream()
                        .map(f -> new JobFiles.InputFile(f.path(), f.content(), "base64")).toList(),
                read(json, row.artifactPaths(), new TypeReference<List<String>>() { })));
    }

    private Map<WorkspacePath, byte[]> decode(JobFiles files) {
        List<FieldError> errors = new ArrayList<>();
        Map<WorkspacePath, byte[]> decoded = new java.util.LinkedHashMap<>();
        if (files.files().size() > MAX_INPUT_FILES) {
            errors.add(new FieldError("files", "at most " + MAX_INPUT_FILES + " files"));
        }
        long total = 0;
        for (int i = 0; i < files.files().size() && errors.isEmpty(); i++) {
            JobFiles.InputFile f = files.files().get(i);
            String field = "files[" + i + "]";
            if (f == null) {
                errors.add(new FieldError(field, "a file {path, content, encoding} is required"));
                continue;
            }
            Optional<String> bad = WorkspacePath.problem(f.path());
            if (bad.isPresent()) {
                errors.add(new FieldError(field + ".path", bad.get()));
                continue;
            }
            String encoding = f.encoding() == null ? "utf-8" : f.encoding().toLowerCase(java.util.Locale.ROOT);
            byte[] content;
            String text = f.content() == null ? "" : f.content();
            if (encoding.equals("utf-8") || encoding.equals("utf8")) {
                content = text.getBytes(StandardCharsets.UTF_8);
            } else if (encoding.equals("base64")) {
                try {
                    content = Base64Content.decode(field + ".content", text);
                } catch (InvalidRequestException e) {
                    errors.addAll(e.errors());
                    continue;
                }
            } else {
                errors.add(new FieldError(field + ".encoding", "must be \"utf-8\" or \"base64\""));
                continue;
            }
            total += content.length;
            if (decoded.put(new WorkspacePath(f.path()), content) != null) {
                errors.add(new FieldError(field + ".path", "'" + f.path() + "' is given twice"));
            }
        }
        if (errors.isEmpty()) {
            Set<String> paths = new HashSet<>();
            decoded.keySet().forEach(p -> paths.add(p.value()));
            for (WorkspacePath p : decoded.keySet()) {
                for (int slash = p.value().indexOf('/'); slash > 0; slash = p.value().indexOf('/', slash + 1)) {
                    if (paths.contains(p.value().substring(0, slash))) {
                        errors.add(new FieldError("files", "'" + p.value().substring(0, slash)
                                + "' cannot be both a file and a directory"));
                    }
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        if (total > config.workspaces().maxInputBytes()) {
            throw new InvalidRequestException(List.of(new FieldError("files", "input files are larger than "
                    + config.workspaces().maxInputBytes() + " bytes together; upload them to a workspace")), true);
        }
        return decoded;
    }

    private static List<WorkspacePath> artifactRoots(JobFiles files) {
        if (files.artifacts().size() > MAX_ARTIFACT_PATHS) {
            throw new InvalidRequestException(List.of(new FieldError("artifacts", "at most " + MAX_ARTIFACT_PATHS
                    + " paths")), false);
        }
        List<WorkspacePath> roots = new ArrayList<>();
        for (int i = 0; i < files.artifacts().size(); i++) {
            roots.add(WorkspacePath.parse("artifacts[" + i + "]", files.artifacts().get(i)));
        }
        return roots.isEmpty() ? List.of(new WorkspacePath(JobFiles.OUT)) : roots;
    }
}

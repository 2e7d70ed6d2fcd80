package dev.nixexec.workspace;

import java.util.Locale;
import java.util.Map;

/** A file's media type from its name's extension; anything unknown is opaque bytes. */
public final class ContentTypes {

    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"), Map.entry("svg", "image/svg+xml"),
            Map.entry("txt", "text/plain"), Map.entry("log", "text/plain"), Map.entry("md", "text/markdown"),
            Map.entry("csv", "text/csv"), Map.entry("tsv", "text/tab-separated-values"),
            Map.entry("json", "application/json"), Map.entry("html", "text/html"), Map.entry("xml", "application/xml"),
            Map.entry("pdf", "application/pdf"), Map.entry("py", "text/x-python"), Map.entry("sh", "text/x-shellscript"),
            Map.entry("zip", "application/zip"), Map.entry("gz", "application/gzip"));

    private ContentTypes() {
    }

    public static String of(String path) {
        int dot = path.lastIndexOf('.');
        if (dot < 0 || dot < path.lastIndexOf('/')) {
            return "application/octet-stream";
        }
        return BY_EXTENSION.getOrDefault(path.substring(dot + 1).toLowerCase(Locale.ROOT), "application/octet-stream");
    }
}

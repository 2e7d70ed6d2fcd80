package dev.nixexec.workspace;

/** A stored file's hash, size and executable bit: what a manifest maps a path to. */
record FileEntry(String sha256, long size, boolean executable) {
}

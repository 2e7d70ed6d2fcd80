package dev.nixexec.nix;

/**
 * The configured nixpkgs URL resolved to one locked input: every build uses {@code lockedUrl};
 * {@code revision} (the git revision, or the NAR hash for path inputs) is recorded on every job, and
 * {@code narHash} identifies the content in cache keys (the locked URL also carries a modification
 * time that changes when nothing else does).
 */
public record NixpkgsPin(String configuredUrl, String lockedUrl, String revision, String narHash) {
}

package dev.nixexec.nix;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The fixed Nix files from {@code nix/} (packaged on the classpath) that every build uses. */
@ApplicationScoped
public class NixExpressions {

    private final String envNix = load("nix/env.nix");
    private final String jobFlake = load("nix/job-flake.nix");
    private final String hash = sha256(envNix + "\0" + jobFlake);

    public String envNix() {
        return envNix;
    }

    public String jobFlake() {
        return jobFlake;
    }

    /** Part of every cache key: a changed expression never reuses an old environment. */
    public String hash() {
        return hash;
    }

    private static String load(String resource) {
        try (InputStream in = NixExpressions.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

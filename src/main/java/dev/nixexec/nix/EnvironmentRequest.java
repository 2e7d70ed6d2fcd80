package dev.nixexec.nix;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an environment must contain: a language and its packages, sorted and without repeats, and
 * whether it carries a CA bundle (a job with network gets one, so HTTPS works).
 */
public record EnvironmentRequest(Language language, List<PackageName> packages, boolean caBundle) {

    /** Always in the environment, so scripts find a shell and the usual tools. */
    static final List<List<String>> BASE = List.of(List.of("bash"), List.of("coreutils"));

    /** nixpkgs' CA bundle: {@code etc/ssl/certs/ca-bundle.crt} in the environment. */
    static final List<String> CA_BUNDLE = List.of("cacert");

    public EnvironmentRequest {
        TreeMap<String, PackageName> unique = new TreeMap<>();
        packages.forEach(p -> unique.put(p.value(), p));
        packages = List.copyOf(unique.values());
    }

    public static EnvironmentRequest of(Language language, Collection<PackageName> packages) {
        return of(language, packages, false);
    }

    public static EnvironmentRequest of(Language language, Collection<PackageName> packages, boolean caBundle) {
        return new EnvironmentRequest(language, List.copyOf(packages), caBundle);
    }

    public List<String> packageNames() {
        return packages.stream().map(PackageName::value).toList();
    }

    /** The data {@code nix/env.nix} reads; the only channel from a request into Nix. */
    public Map<String, Object> toNixRequest(String system) {
        List<Map<String, Object>> setPackages = new ArrayList<>();
        List<Map<String, Object>> topLevel = new ArrayList<>();
        for (PackageName p : packages) {
            if (language.isSetPackage(p)) {
                setPackages.add(Map.of("name", p.value(), "path", p.tail()));
            } else {
                topLevel.add(Map.of("name", p.value(), "path", p.segments()));
            }
        }
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("system", system);
        request.put("interpreter", List.of(language.interpreter()));
        request.put("with_packages", language.withPackages().orElse(null));
        request.put("set_packages", setPackages);
        request.put("packages", topLevel);
        List<List<String>> base = new ArrayList<>(BASE);
        if (caBundle) {
            base.add(CA_BUNDLE);
        }
        request.put("base", base);
        return request;
    }

    /**
     * Cache key: hash of everything that decides the build's result, so a different nixpkgs, system
     * or expression never reuses an environment.
     */
    public String cacheKey(String system, NixpkgsPin pin, String expressionHash) {
        // an environment without the bundle keeps the key it always had
        String canonical = String.join("\n", "v1", system, pin.narHash(), expressionHash, language.id(),
                String.join(",", packageNames())) + (caBundle ? "\ncacert" : "");
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

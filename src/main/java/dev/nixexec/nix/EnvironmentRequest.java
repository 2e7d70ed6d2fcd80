package dev.nixexec.nix;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an environment must contain: a language and its packages, sorted and without repeats, and
 * whether it carries a CA bundle (a job with network gets one, so HTTPS works). A member of any
 * language's package set comes with that language's interpreter, wired by its withPackages (as
 * nix-exec did for python3Packages), so {@code python3Packages.numpy} in a bash job or a session
 * gives a {@code python3} that imports numpy.
 */
public record EnvironmentRequest(Language language, List<PackageName> packages, boolean caBundle) {

    /**
     * Always in the environment, so scripts find a shell and the everyday tools: coreutils,
     * findutils, grep, sed, awk, diff, tar and gzip.
     */
    static final List<List<String>> BASE = List.of(List.of("bash"), List.of("coreutils"), List.of("findutils"),
            List.of("gnugrep"), List.of("gnused"), List.of("gawk"), List.of("diffutils"), List.of("gnutar"),
            List.of("gzip"));

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
        // other languages' set members by language, in the order of Language's constants
        Map<Language, List<Map<String, Object>>> otherSets = new EnumMap<>(Language.class);
        List<PackageName> rest = new ArrayList<>();
        for (PackageName p : packages) {
            Optional<Language> set = Arrays.stream(Language.values()).filter(l -> l.isSetPackage(p)).findFirst();
            if (set.isEmpty()) {
                rest.add(p);
            } else if (set.get() == language) {
                setPackages.add(Map.of("name", p.value(), "path", p.tail()));
            } else {
                otherSets.computeIfAbsent(set.get(), l -> new ArrayList<>())
                        .add(Map.of("name", p.value(), "path", p.tail()));
            }
        }
        // a plain interpreter beside its own withPackages would collide in the environment (both
        // have bin/python3): the withPackages one has the interpreter already
        Set<String> wired = new HashSet<>();
        otherSets.keySet().forEach(l -> wired.add(l.interpreter()));
        if (!setPackages.isEmpty()) {
            wired.add(language.interpreter());
        }
        List<List<String>> base = new ArrayList<>(BASE);
        if (caBundle) {
            base.add(CA_BUNDLE);
        }
        List<Map<String, Object>> topLevel = new ArrayList<>();
        for (PackageName p : rest) {
            // the base has it already
            if (!(p.segments().size() == 1 && wired.contains(p.value())) && !base.contains(p.segments())) {
                topLevel.add(Map.of("name", p.value(), "path", p.segments()));
            }
        }
        List<Map<String, Object>> languageSets = new ArrayList<>();
        otherSets.forEach((l, members) -> languageSets.add(Map.of("with_packages", l.withPackages().orElseThrow(),
                "members", members)));
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("system", system);
        request.put("interpreter", List.of(language.interpreter()));
        request.put("with_packages", language.withPackages().orElse(null));
        request.put("set_packages", setPackages);
        request.put("packages", topLevel);
        request.put("language_sets", languageSets);
        request.put("base", base);
        return request;
    }

    /**
     * Cache key: hash of everything that decides the build's result, so a different nixpkgs, system
     * or expression never reuses an environment.
     */
    public String cacheKey(String system, NixpkgsPin pin, String expressionHash) {
        // the base is part of the key: an environment built before a tool joined it lacks the tool
        String canonical = String.join("\n", "v1", system, pin.narHash(), expressionHash, language.id(),
                String.join(",", packageNames())) + (caBundle ? "\ncacert" : "") + "\nbase "
                + BASE.stream().map(p -> String.join(".", p)).collect(Collectors.joining(","));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.nixexec.nix;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One entry of {@code nixexec.environments.prebuild}: {@code LANGUAGE [PACKAGE ...]}, or
 * {@code LANGUAGE @PROFILE} for a built-in profile's packages (which the worker looks up: profiles
 * belong to the session package, above this one).
 */
public sealed interface PrebuildEntry {

    Pattern PROFILE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,62}");

    /** The entry as configured: its name in {@code GET /v1/nodes}. */
    String text();

    Language language();

    record Packages(String text, Language language, List<PackageName> packages) implements PrebuildEntry {
        public Packages {
            packages = List.copyOf(packages);
        }

        public EnvironmentRequest request() {
            return EnvironmentRequest.of(language, packages);
        }
    }

    record FromProfile(String text, Language language, String profile) implements PrebuildEntry {
    }

    /** Parses an entry or throws {@link IllegalArgumentException} saying what is wrong with it. */
    static PrebuildEntry parse(String raw) {
        String text = raw == null ? "" : raw.strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an empty entry");
        }
        List<String> words = Arrays.asList(text.split(" "));
        Language language = Language.byId(words.get(0)).orElseThrow(() -> new IllegalArgumentException(
                "'" + words.get(0) + "' is not a language (" + String.join(", ", Language.ids()) + ")"));
        List<String> rest = words.subList(1, words.size());
        if (!rest.isEmpty() && rest.get(0).startsWith("@")) {
            String profile = rest.get(0).substring(1);
            if (rest.size() > 1 || !PROFILE_NAME.matcher(profile).matches()) {
                throw new IllegalArgumentException("a profile entry is LANGUAGE @PROFILE, nothing more");
            }
            return new FromProfile(text, language, profile);
        }
        List<PackageName> packages = new ArrayList<>();
        for (String word : rest) {
            packages.add(PackageName.parse(word));
        }
        return new Packages(text, language, packages);
    }
}

package dev.nixexec.nix;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which environments every worker keeps built: the {@code top} most requested of the recent jobs.
 * Only the decision; the counts come from the jobs table (worker/EnvironmentDemand). Requests that
 * differ only in the order or repetition of their packages are one environment; a row this service
 * would refuse today (an unknown language, a malformed or denied name) is left out.
 */
public final class MostUsedEnvironments {

    /** How often jobs asked for one language, package list and network setting. */
    public record Demand(String language, List<String> packages, boolean network, long jobs) {
        public Demand {
            packages = List.copyOf(packages);
        }
    }

    /** A chosen environment, named as a prebuild entry would be. */
    public record Chosen(String name, EnvironmentRequest request, long jobs) {
    }

    private MostUsedEnvironments() {
    }

    public static List<Chosen> choose(List<Demand> demand, int top, PackagePolicy policy) {
        Map<EnvironmentRequest, Long> counts = new LinkedHashMap<>();
        for (Demand row : demand) {
            request(row, policy).ifPresent(r -> counts.merge(r, row.jobs(), Long::sum));
        }
        List<Chosen> all = new ArrayList<>();
        counts.forEach((request, jobs) -> all.add(new Chosen(name(request), request, jobs)));
        all.sort(Comparator.comparingLong(Chosen::jobs).reversed().thenComparing(Chosen::name));
        return List.copyOf(all.subList(0, Math.min(Math.max(top, 0), all.size())));
    }

    /** {@code python python3Packages.numpy (network)}: the language, the sorted names, the CA bundle. */
    public static String name(EnvironmentRequest request) {
        List<String> words = new ArrayList<>();
        words.add(request.language().id());
        words.addAll(request.packageNames());
        return String.join(" ", words) + (request.caBundle() ? " (network)" : "");
    }

    private static Optional<EnvironmentRequest> request(Demand row, PackagePolicy policy) {
        Optional<Language> language = Language.byId(row.language());
        if (language.isEmpty()) {
            return Optional.empty();
        }
        List<PackageName> names = new ArrayList<>();
        for (String raw : row.packages()) {
            PackageName name;
            try {
                name = PackageName.parse(raw);
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
            if (policy.rejection(name).isPresent()) {
                return Optional.empty();
            }
            names.add(name);
        }
        return Optional.of(EnvironmentRequest.of(language.get(), names, row.network()));
    }
}

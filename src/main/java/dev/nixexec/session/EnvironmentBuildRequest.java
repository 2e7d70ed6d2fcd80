package dev.nixexec.session;

import dev.nixexec.profile.SpecBody;
import java.util.List;

/**
 * {@code POST /v1/environments} (nixo's {@code build}): a language (bash when none) and at most one
 * of {@code packages}, {@code profile} or {@code spec}: the environment a later job or session
 * with the same request finds built.
 */
public record EnvironmentBuildRequest(String language, List<String> packages, String profile, SpecBody spec) {
}

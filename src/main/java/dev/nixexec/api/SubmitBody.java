package dev.nixexec.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.nixexec.job.JobService;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.workspace.JobFiles;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The body of {@code POST /v1/jobs}; {@code workspace} (id or name), {@code files} and
 * {@code artifacts} are described in docs/workspaces.md; {@code profile} names a profile the job runs
 * under (session/ProfileSubmissions); {@code args} are passed to the program, {@code encoding}
 * ({@code utf-8} or {@code base64}) is how its output is returned. It only turns the wire form into a
 * submission (the network and encoding words, durations as text); intake checks the rest.
 */
public record SubmitBody(String language, String code, List<String> packages, Map<String, String> env, String stdin,
        JsonNode timeout, String network, Map<String, Object> metadata, String workspace,
        List<JobFiles.InputFile> files, List<String> artifacts, String profile, List<String> args, String encoding) {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,7})(ms|s|m|h)?");

    JobService.Submission submission() {
        if (network != null && !network.equals("off") && !network.equals("full")) {
            throw new InvalidRequestException(List.of(new FieldError("network", "must be \"off\" or \"full\"")), false);
        }
        OutputEncoding outputEncoding = encoding == null ? OutputEncoding.UTF_8 : OutputEncoding.byId(encoding)
                .orElseThrow(() -> new InvalidRequestException(List.of(new FieldError("encoding",
                        "must be \"utf-8\" or \"base64\"")), false));
        return new JobService.Submission(language, code, packages, env, stdin, duration("timeout", timeout),
                "full".equals(network), metadata, Optional.empty(),
                new JobFiles(Optional.ofNullable(workspace), files, artifacts)).withArgs(args).withEncoding(outputEncoding);
    }

    /** The job's own word on network, if it said one (a profile's network applies otherwise). */
    Optional<Boolean> networkChoice() {
        return network == null ? Optional.empty() : Optional.of("full".equals(network));
    }

    /** {@code "90s"}, {@code "2m"}, {@code "1h"}, {@code "500ms"} or a number of seconds. */
    static Optional<Duration> duration(String field, JsonNode value) {
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (value.isNumber() && value.asDouble() > 0 && value.asDouble() < 1e7) {
            return Optional.of(Duration.ofMillis(Math.round(value.asDouble() * 1000)));
        }
        if (value.isTextual()) {
            return Optional.of(duration(field, value.asText()));
        }
        throw badDuration(field, value.toString());
    }

    /** The same forms as text, as in a query parameter. */
    static Duration duration(String field, String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw badDuration(field, text);
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    private static InvalidRequestException badDuration(String field, String value) {
        return new InvalidRequestException(List.of(new FieldError(field,
                "a duration like \"90s\", \"2m\" or a number of seconds, not " + value)), false);
    }
}

package dev.nixexec.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.nixexec.execution.ByteSize;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.job.Submission;
import dev.nixexec.job.OutputEncoding;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.workspace.JobFiles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The body of {@code POST /v1/jobs}; {@code workspace} (id or name), {@code files} and
 * {@code artifacts} are described in docs/workspaces.md; {@code profile} names a profile the job runs
 * under (profile/ProfileSubmissions); {@code callback_url} gets the job JSON when it ends (docs/api.md,
 * "Callbacks"); {@code limits} the run's limits ({@link #limits}); {@code args} are passed to the
 * program, {@code encoding} ({@code utf-8} or {@code base64}) is how its output is returned. It only
 * turns the wire form into a submission (the network and encoding words, durations as text); intake
 * checks the rest.
 */
public record SubmitBody(String language, String code, List<String> packages, Map<String, String> env, String stdin,
        JsonNode timeout, String network, Map<String, Object> metadata, String workspace,
        List<JobFiles.InputFile> files, List<String> artifacts, String profile, String callbackUrl, JsonNode limits,
        List<String> args, String encoding) {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,7})(ms|s|m|h)?");

    /** The submission these words say and every problem reading them; a field with a problem is left at its default. */
    record Read(Submission submission, List<FieldError> problems) {
    }

    Read read() {
        List<FieldError> problems = new ArrayList<>();
        if (network != null && !network.equals("off") && !network.equals("full")) {
            problems.add(new FieldError("network", "must be \"off\" or \"full\""));
        }
        Optional<OutputEncoding> outputEncoding = encoding == null ? Optional.of(OutputEncoding.UTF_8) : OutputEncoding.byId(encoding);
        if (outputEncoding.isEmpty()) {
            problems.add(new FieldError("encoding", "must be \"utf-8\" or \"base64\""));
        }
        Optional<Duration> runFor = Optional.empty();
        RequestedLimits requested = RequestedLimits.NONE;
        try {
            runFor = duration("timeout", timeout);
        } catch (InvalidRequestException e) {
            problems.addAll(e.errors());
        }
        try {
            requested = limits(limits);
        } catch (InvalidRequestException e) {
            problems.addAll(e.errors());
        }
        Submission submission = new Submission(new ExecutionRequest(language, code, packages, env, stdin, runFor,
                "full".equals(network), requested, args), outputEncoding.orElse(OutputEncoding.UTF_8), metadata,
                Optional.empty(), List.of(), new JobFiles(Optional.ofNullable(workspace), files, artifacts),
                Optional.empty(), Optional.ofNullable(callbackUrl), Optional.empty());
        return new Read(submission, problems);
    }

    /**
     * {@code limits} as sent: {@code {memory, pids, cpu_seconds, output_bytes}}, each optional;
     * sizes a whole number of bytes or a string such as {@code "64MiB"} ({@link ByteSize}), counts
     * whole numbers. Every problem at once, each under {@code limits.<field>}.
     */
    static RequestedLimits limits(JsonNode value) {
        if (value == null || value.isNull()) {
            return RequestedLimits.NONE;
        }
        if (!value.isObject()) {
            throw new InvalidRequestException(List.of(new FieldError("limits",
                    "an object {memory, pids, cpu_seconds, output_bytes}, each optional")), false);
        }
        List<FieldError> errors = new ArrayList<>();
        value.fieldNames().forEachRemaining(name -> {
            if (!LIMIT_FIELDS.contains(name)) {
                errors.add(new FieldError("limits." + name, "unknown limit; known: " + String.join(", ", LIMIT_FIELDS)));
            }
        });
        Long memory = size(value.get("memory"), "limits.memory", errors);
        Long pids = count(value.get("pids"), "limits.pids", errors);
        Long cpuSeconds = count(value.get("cpu_seconds"), "limits.cpu_seconds", errors);
        Long outputBytes = size(value.get("output_bytes"), "limits.output_bytes", errors);
        if (pids != null && pids > Integer.MAX_VALUE) {
            errors.add(new FieldError("limits.pids", "a count of processes, not " + pids));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors, false);
        }
        return new RequestedLimits(memory, pids == null ? null : pids.intValue(), cpuSeconds, outputBytes);
    }

    private static final List<String> LIMIT_FIELDS = List.of("memory", "pids", "cpu_seconds", "output_bytes");

    private static Long size(JsonNode value, String field, List<FieldError> errors) {
        if (value == null || value.isNull()) {
            return null;
        }
        Optional<Long> bytes = value.isIntegralNumber() && value.canConvertToLong() ? Optional.of(value.asLong())
                : value.isTextual() ? ByteSize.parse(value.asText()) : Optional.empty();
        if (bytes.isEmpty() || bytes.get() <= 0) {
            errors.add(new FieldError(field, "a size: a whole number of bytes, or a string such as \"64MiB\", "
                    + "\"1GiB\" or \"500KB\"; not " + value));
            return null;
        }
        return bytes.get();
    }

    private static Long count(JsonNode value, String field, List<FieldError> errors) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.asLong() <= 0) {
            errors.add(new FieldError(field, "a whole number above 0, not " + value));
            return null;
        }
        return value.asLong();
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

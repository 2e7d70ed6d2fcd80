package dev.nixexec.job;

import dev.nixexec.execution.RequestedLimits;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Everything an auditor reviews about one job: the public view plus what was submitted and when it
 * was claimed. {@code env} holds the values only when the caller's role may see them (the names are
 * always in {@code envNames}); {@code limits} are those it asked for (a field left null: the default).
 */
public record JobDetail(JobView job, UUID keyId, String code, String stdin, List<String> envNames,
        Optional<Map<String, String>> env, long timeoutMs, boolean network, int maxAttempts,
        OffsetDateTime claimedAt, boolean cancelRequested, RequestedLimits limits) {
}

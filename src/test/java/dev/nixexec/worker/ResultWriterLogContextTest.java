package dev.nixexec.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.logging.JobLogContext;
import dev.nixexec.job.JobTransitions;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jboss.logging.MDC;
import org.junit.jupiter.api.Test;

/**
 * The result writer writes on the thread of whichever job finds it idle, other jobs' results too:
 * what it does (and logs) must not carry that job's id. The transitions are a double that records
 * the writing thread's log context instead of storing.
 */
class ResultWriterLogContextTest {

    @Test
    void theWriterThreadCarriesNoJobAfterTwoJobs() {
        List<String> seenByWriter = Collections.synchronizedList(new ArrayList<>());
        JobTransitions transitions = new JobTransitions(null, null, null, null) {
            @Override
            public Set<UUID> finish(String nodeId, List<Finish> finishes) {
                seenByWriter.add(String.valueOf(MDC.get(JobLogContext.JOB_ID)));
                return finishes.stream().map(Finish::id).collect(Collectors.toSet());
            }
        };
        ResultWriter writer = new ResultWriter(transitions, config(Duration.ofSeconds(5)));
        try {
            for (int i = 0; i < 2; i++) {
                UUID jobId = UUID.randomUUID();
                JobLogContext.around(jobId, UUID.randomUUID(), () -> assertTrue(
                        writer.write("node", new JobTransitions.Finish(jobId, 1, null, List.of())))).run();
            }
        } finally {
            writer.stop();
        }
        assertEquals(List.of("null", "null"), seenByWriter);
    }

    /** Only {@code jobs().lease()} is read by the writer. */
    private static NixExecConfig config(Duration lease) {
        NixExecConfig.Jobs jobs = (NixExecConfig.Jobs) Proxy.newProxyInstance(NixExecConfig.class.getClassLoader(),
                new Class<?>[] {NixExecConfig.Jobs.class}, (proxy, method, args) -> {
                    if (method.getName().equals("lease")) {
                        return lease;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (NixExecConfig) Proxy.newProxyInstance(NixExecConfig.class.getClassLoader(),
                new Class<?>[] {NixExecConfig.class}, (proxy, method, args) -> {
                    if (method.getName().equals("jobs")) {
                        return jobs;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}

package dev.nixexec.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.sandbox.Limits;

/**
 * The limits a request asks for its run ({@code limits} of a submit body), in bytes, processes and
 * seconds; a null field keeps the service's default. {@link ExecutionEngine#validate} holds them
 * to the service's own limits, intake to the tenant's caps as well.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestedLimits(Long memory, Integer pids, Long cpuSeconds, Long outputBytes) {

    public static final RequestedLimits NONE = new RequestedLimits(null, null, null, null);

    /** Smallest memory a run may ask for: a floor against sizes meant as KB or MB but sent as bytes. */
    public static final long MIN_MEMORY_BYTES = 4L << 20;

    @JsonIgnore
    public boolean isEmpty() {
        return memory == null && pids == null && cpuSeconds == null && outputBytes == null;
    }

    /** {@code base} with the fields this asks for in place of its own. */
    public Limits over(Limits base) {
        return new Limits(base.timeout(), memory != null ? memory : base.memoryBytes(),
                pids != null ? pids : base.maxProcesses(), cpuSeconds != null ? cpuSeconds : base.cpuSeconds(),
                base.maxFileBytes(), base.tmpBytes(), base.workspaceBytes(),
                outputBytes != null ? outputBytes : base.maxOutputBytes());
    }
}

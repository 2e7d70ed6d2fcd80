package dev.nixexec.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run used, read from its cgroup's files: cgroup v1 (this host; the real files are read by
 * JobLimitsApiTest) and v2, which this host lacks, on directories laid out as the kernel's.
 */
class JobCgroupUsageTest {

    @TempDir
    Path dir;

    @Test
    void v2ReadsUsageUsecOfCpuStatAndMemoryPeak() throws IOException {
        Files.writeString(dir.resolve("cpu.stat"), """
                usage_usec 1534021
                user_usec 1200000
                system_usec 334021
                nr_periods 0
                nr_throttled 0
                throttled_usec 0
                """);
        Files.writeString(dir.resolve("memory.peak"), "70254592\n");
        ResourceUsage usage = new JobCgroup.V2(dir).usage(Optional.of(34_021_000L));
        assertEquals(Optional.of(1500L), usage.cpuMs(), "since the code started: 1534021 µs less 34021 µs");
        assertEquals(Optional.of(70254592L), usage.maxRssBytes());
    }

    @Test
    void v2WithoutMemoryPeakStillHasItsCpuTime() throws IOException {
        // memory.peak came with Linux 5.19
        Files.writeString(dir.resolve("cpu.stat"), "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n");
        ResourceUsage usage = new JobCgroup.V2(dir).usage(Optional.empty());
        assertEquals(Optional.of(2L), usage.cpuMs());
        assertEquals(Optional.empty(), usage.maxRssBytes());
    }

    @Test
    void v1ReadsCpuacctUsageAndMaxUsageInBytes() throws IOException {
        Path memory = Files.createDirectory(dir.resolve("memory"));
        Path cpuacct = Files.createDirectory(dir.resolve("cpuacct"));
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "67108864\n");
        Files.writeString(cpuacct.resolve("cpuacct.usage"), "1012345678\n");
        ResourceUsage usage = new JobCgroup.V1(memory, null, cpuacct).usage(Optional.of(12_000_000L));
        assertEquals(Optional.of(1000L), usage.cpuMs());
        assertEquals(Optional.of(67108864L), usage.maxRssBytes());
    }

    @Test
    void v1WithoutCpuacctMeasuresNoCpuTime() throws IOException {
        Path memory = Files.createDirectory(dir.resolve("memory"));
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "4096\n");
        ResourceUsage usage = new JobCgroup.V1(memory, null, null).usage(Optional.empty());
        assertEquals(Optional.empty(), usage.cpuMs());
        assertEquals(Optional.of(4096L), usage.maxRssBytes());
    }

    @Test
    void missingOrGarbledFilesAreUnmeasuredNeverZero() throws IOException {
        assertFalse(new JobCgroup.V2(dir).usage(Optional.empty()).measured());
        Files.writeString(dir.resolve("cpu.stat"), "usage_usec lots\n");
        Files.writeString(dir.resolve("memory.peak"), "max\n");
        assertFalse(new JobCgroup.V2(dir).usage(Optional.empty()).measured());
    }
}

package dev.nixexec.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import org.junit.jupiter.api.Test;

/**
 * The capability packages under {@code dev.nixexec} depend on each other without a cycle, so each
 * can be read, tested and changed from the ones below it (docs/architecture.md has the map).
 */
class PackageCycleTest {

    @Test
    void noCycleBetweenPackages() {
        slices().matching("dev.nixexec.(*)..").should().beFreeOfCycles().check(ProductionClasses.ALL);
    }
}

package dev.nixexec.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The capability packages under {@code dev.nixexec} depend on each other without a cycle, so each
 * can be read, tested and changed from the ones below it (docs/architecture.md has the map).
 */
class PackageCycleTest {

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.nixexec");

    @Test
    void noCycleBetweenPackages() {
        slices().matching("dev.nixexec.(*)..").should().beFreeOfCycles().check(PRODUCTION);
    }
}

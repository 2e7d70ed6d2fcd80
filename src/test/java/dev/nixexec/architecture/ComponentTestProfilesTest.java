package dev.nixexec.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.LocalMode;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The component tests ({@code *Test} with {@code @QuarkusTest}) share three application starts:
 * each distinct profile or test-resource set is one more start, and Quarkus prepares every one
 * up front (over ten seconds each on this project's 2-core machine) before the first test runs.
 * A test that needs another configuration belongs in a cheaper tier or among the {@code *IT}s.
 */
class ComponentTestProfilesTest {

    private static final Set<Class<?>> PROFILES = Set.of(ApiOnlyNode.class, LocalMode.class);

    @Test
    void everyComponentTestUsesNixSpyAndOneOfTheSharedProfiles() {
        List<String> wrong = new ArrayList<>();
        int components = 0;
        for (JavaClass c : new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages("dev.nixexec")) {
            if (!c.getSimpleName().endsWith("Test") || !c.isAnnotatedWith(QuarkusTest.class)) {
                continue;
            }
            components++;
            List<Class<?>> resources = c.tryGetAnnotationOfType(WithTestResource.class)
                    .<List<Class<?>>>map(r -> List.of(r.value())).orElse(List.of());
            if (!resources.equals(List.of(NixSpy.class)) || c.isAnnotatedWith(WithTestResource.List.class)) {
                wrong.add(c.getSimpleName() + ": test resources " + resources + ", not exactly NixSpy");
            }
            c.tryGetAnnotationOfType(TestProfile.class).map(TestProfile::value).filter(p -> !PROFILES.contains(p))
                    .ifPresent(p -> wrong.add(c.getSimpleName() + ": profile " + p.getSimpleName()));
        }
        assertTrue(components > 40, "found only " + components + " component tests: the scan is broken");
        assertEquals(List.of(), wrong);
    }
}

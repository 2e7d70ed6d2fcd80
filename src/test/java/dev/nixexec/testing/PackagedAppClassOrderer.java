package dev.nixexec.testing;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.util.QuarkusTestProfileAwareClassOrderer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Quarkus' order of the test classes, with the {@code @QuarkusIntegrationTest} classes of one
 * profile and set of test resources moved up to the first of them: Quarkus orders those by name
 * alone and starts the packaged service anew at each change of profile or resources. (failsafe's
 * {@code quarkus.test.class-orderer}, pom.xml.)
 */
public final class PackagedAppClassOrderer implements ClassOrderer {

    private final ClassOrderer quarkus = new QuarkusTestProfileAwareClassOrderer();

    @Override
    public void orderClasses(ClassOrdererContext context) {
        quarkus.orderClasses(context);
        List<? extends ClassDescriptor> classes = context.getClassDescriptors();
        Map<Object, Integer> first = new HashMap<>();
        for (int i = 0; i < classes.size(); i++) {
            first.putIfAbsent(application(classes.get(i)), i);
        }
        // a stable sort: the classes of one service keep their order among themselves
        classes.sort(Comparator.comparingInt(c -> first.get(application(c))));
    }

    /** What decides the packaged service a class runs against; any other class is its own. */
    private static Object application(ClassDescriptor test) {
        if (!test.isAnnotated(QuarkusIntegrationTest.class)) {
            return test.getTestClass();
        }
        return List.of(test.findAnnotation(TestProfile.class).map(TestProfile::value),
                new HashSet<>(test.findRepeatableAnnotations(WithTestResource.class)));
    }
}

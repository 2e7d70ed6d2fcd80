package dev.nixexec.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;

import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.quarkus.scheduler.Scheduled;
import org.junit.jupiter.api.Test;

/**
 * A scheduled task does not start once the service is stopping: one that ran after Hibernate and
 * the datasource closed logged an ERROR on a clean stop (seen in GracefulStopIT under load).
 */
class ScheduledTasksTest {

    @Test
    void everyScheduledTaskSkipsWhileTheServiceIsNotRunning() {
        methods().that().areAnnotatedWith(Scheduled.class).should(skipWhileNotRunning()).check(ProductionClasses.ALL);
    }

    private static ArchCondition<JavaMethod> skipWhileNotRunning() {
        return new ArchCondition<>("skip their executions while the application is not running") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                Scheduled scheduled = method.getAnnotationOfType(Scheduled.class);
                boolean skips = scheduled.skipExecutionIf() == Scheduled.ApplicationNotRunning.class;
                events.add(new SimpleConditionEvent(method, skips, method.getFullName()
                        + (skips ? " skips" : " lacks skipExecutionIf = Scheduled.ApplicationNotRunning.class")));
            }
        };
    }
}

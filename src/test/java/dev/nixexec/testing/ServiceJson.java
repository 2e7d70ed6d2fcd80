package dev.nixexec.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

/** JSON as the service reads and writes it (application.properties' quarkus.jackson settings), without a start. */
public final class ServiceJson {

    private ServiceJson() {
    }

    public static ObjectMapper mapper() {
        return new ObjectMapper().findAndRegisterModules()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }
}

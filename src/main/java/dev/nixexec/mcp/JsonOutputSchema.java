package dev.nixexec.mcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.quarkiverse.mcp.server.OutputSchemaGenerator;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.net.URI;
import java.time.temporal.TemporalAccessor;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * The {@code outputSchema} of a tool's structured content, read from the service's own
 * {@link ObjectMapper} (the one that writes that content): property names as it writes them
 * (snake_case), every property it always writes {@code required}, {@code null} allowed where a
 * value may be absent, no other properties. The extension's generator (1.13) knows neither the
 * mapper's naming nor nulls, so its schema would not match what the tools send.
 */
@Singleton
public class JsonOutputSchema implements OutputSchemaGenerator {

    private final ObjectMapper mapper;

    public JsonOutputSchema(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public Object generate(Class<?> from) {
        return object(mapper.constructType(from), new HashSet<>());
    }

    private JsonObject object(JavaType type, Set<Class<?>> enclosing) {
        SerializationConfig config = mapper.getSerializationConfig();
        BeanDescription bean = config.introspect(type);
        JsonObject properties = new JsonObject();
        JsonArray required = new JsonArray();
        enclosing.add(type.getRawClass());
        for (BeanPropertyDefinition property : bean.findProperties()) {
            if (!property.couldSerialize()) {
                continue;
            }
            JavaType propertyType = property.getPrimaryType();
            properties.put(property.getName(), schema(propertyType, enclosing));
            JsonInclude.Include inclusion = config.getDefaultPropertyInclusion(propertyType.getRawClass())
                    .withOverrides(property.findInclusion()).getValueInclusion();
            if (inclusion == JsonInclude.Include.ALWAYS || inclusion == JsonInclude.Include.USE_DEFAULTS) {
                required.add(property.getName());
            }
        }
        enclosing.remove(type.getRawClass());
        return new JsonObject().put("type", "object").put("properties", properties).put("required", required)
                .put("additionalProperties", false);
    }

    /** A value's schema; a reference type may be written as {@code null}. */
    private JsonObject schema(JavaType type, Set<Class<?>> enclosing) {
        Class<?> raw = type.getRawClass();
        if (type.isPrimitive()) {
            return new JsonObject().put("type", primitive(raw));
        }
        if (raw == Object.class || enclosing.contains(raw)) {
            return new JsonObject(); // anything
        }
        JsonObject schema;
        if (raw == Boolean.class || raw == Character.class || Number.class.isAssignableFrom(raw)) {
            schema = new JsonObject().put("type", primitive(raw));
        } else if (CharSequence.class.isAssignableFrom(raw) || raw == UUID.class || raw == URI.class || raw.isEnum()
                || raw == byte[].class) {
            schema = new JsonObject().put("type", "string");
        } else if (TemporalAccessor.class.isAssignableFrom(raw)) {
            schema = new JsonObject().put("type",
                    mapper.isEnabled(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS) ? "number" : "string");
        } else if (type.isContainerType() && type.isMapLikeType()) {
            schema = new JsonObject().put("type", "object");
            JsonObject values = schema(type.getContentType(), enclosing);
            if (!values.isEmpty()) {
                schema.put("additionalProperties", values);
            }
        } else if (type.isContainerType()) {
            schema = new JsonObject().put("type", "array").put("items", schema(type.getContentType(), enclosing));
        } else {
            schema = object(type, enclosing);
        }
        return schema.put("type", new JsonArray().add(schema.getString("type")).add("null"));
    }

    private static String primitive(Class<?> raw) {
        if (raw == boolean.class || raw == Boolean.class) {
            return "boolean";
        }
        if (raw == char.class || raw == Character.class) {
            return "string";
        }
        if (raw == float.class || raw == double.class || raw == Float.class || raw == Double.class
                || raw == BigDecimal.class) {
            return "number";
        }
        return "integer";
    }
}

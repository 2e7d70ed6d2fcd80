package dev.nixexec.refusal;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every problem of a JSON value's shape against the type it is read into, at once: each member the
 * type does not have ({@code unknown field}) and each value of the wrong type, by its path
 * ({@code env.A}, {@code files[0].path}). Jackson stops at the first; a caller fixing one problem per
 * round trip is what this saves. Members are walked as Jackson reads them (its own deserializers, so
 * names follow the naming strategy and values its coercion rules). A REST body and an MCP tool
 * call's arguments are checked with it.
 */
public final class JsonShape {

    private final ObjectMapper json;
    private final DefaultDeserializationContext context;

    public JsonShape(ObjectMapper json) {
        this.json = json;
        this.context = ((DefaultDeserializationContext) json.getDeserializationContext())
                .createDummyInstance(json.getDeserializationConfig());
    }

    /** The problems of {@code value} read as {@code type}, none when Jackson reads it whole. */
    public List<FieldError> problems(JsonNode value, JavaType type) {
        return problems(value, type, "");
    }

    /** The same for a value at {@code path} ({@code ""}: a whole body, named {@code body}). */
    public List<FieldError> problems(JsonNode value, JavaType type, String path) {
        if (reads(value, type)) {
            return List.of();
        }
        List<FieldError> problems = new ArrayList<>();
        walk(value, type, path, problems);
        return problems;
    }

    /**
     * The refusal of these problems; one alone reads as a refusal of the first problem did before
     * every problem was listed ({@code detail} is kept for clients that show it).
     */
    public static InvalidRequestException refusal(List<FieldError> problems) {
        if (problems.size() != 1) {
            return new InvalidRequestException(problems, false);
        }
        FieldError only = problems.get(0);
        String detail = only.message().equals("unknown field") ? "unknown field '" + only.field() + "'"
                : only.field().equals("body") ? "the request body must be a JSON object"
                : "field '" + only.field() + "' has the wrong type or shape: " + only.message();
        return new InvalidRequestException(problems, false, detail);
    }

    /** {@code body} without the members {@code problems} name at its top level: what is left to read. */
    public static JsonNode without(JsonNode body, List<FieldError> problems) {
        if (!(body instanceof ObjectNode object)) {
            return body;
        }
        ObjectNode rest = object.deepCopy();
        for (FieldError problem : problems) {
            rest.remove(problem.field().split("[.\\[]", 2)[0]);
        }
        return rest;
    }

    private void walk(JsonNode value, JavaType type, String path, List<FieldError> problems) {
        if (value == null || value.isNull() || type.isJavaLangObject() || JsonNode.class.isAssignableFrom(type.getRawClass())) {
            return;
        }
        BeanDeserializerBase bean = bean(type);
        if (bean != null && value.isObject()) {
            for (Map.Entry<String, JsonNode> member : value.properties()) {
                SettableBeanProperty property = bean.findProperty(member.getKey());
                String at = path.isEmpty() ? member.getKey() : path + "." + member.getKey();
                if (property == null) {
                    problems.add(new FieldError(at, "unknown field"));
                } else {
                    walk(member.getValue(), property.getType(), at, problems);
                }
            }
        } else if (type.isMapLikeType() && value.isObject()) {
            for (Map.Entry<String, JsonNode> member : value.properties()) {
                walk(member.getValue(), type.getContentType(), (path.isEmpty() ? "" : path + ".") + member.getKey(), problems);
            }
        } else if (type.isCollectionLikeType() && value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                walk(value.get(i), type.getContentType(), path + "[" + i + "]", problems);
            }
        } else if (!reads(value, type)) {
            problems.add(new FieldError(path.isEmpty() ? "body" : path, "must be " + expected(type) + ", not " + kind(value)));
        }
    }

    private boolean reads(JsonNode value, JavaType type) {
        try {
            json.readerFor(type).readValue(json.treeAsTokens(value));
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The bean deserializer of one of our own types, or null for JDK types, maps and the like. */
    private BeanDeserializerBase bean(JavaType type) {
        if (!type.getRawClass().getName().startsWith("dev.nixexec.")) {
            return null;
        }
        try {
            JsonDeserializer<Object> deserializer = context.findRootValueDeserializer(type);
            return deserializer instanceof BeanDeserializerBase bean ? bean : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** What a value of {@code type} is written as, in the words of the JSON a caller sends. */
    private static String expected(JavaType type) {
        Class<?> raw = type.getRawClass();
        if (raw == String.class) {
            return "a string";
        }
        if (raw == Boolean.class || raw == boolean.class) {
            return "true or false";
        }
        if (raw == Integer.class || raw == int.class || raw == Long.class || raw == long.class || raw == Short.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(raw) || raw.isPrimitive()) {
            return "a number";
        }
        if (type.isCollectionLikeType() || type.isArrayType()) {
            return "an array";
        }
        if (raw == java.util.UUID.class) {
            return "a UUID string";
        }
        if (raw.isEnum()) {
            return "one of its names as a string";
        }
        return type.isMapLikeType() || raw.getName().startsWith("dev.nixexec.") ? "an object" : "a valid value";
    }

    private static String kind(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> value.asBoolean() ? "true" : "false";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> value.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}

package dev.nixexec.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.hamcrest.BaseMatcher;
import org.hamcrest.Description;
import org.hamcrest.Matcher;

/**
 * A JSON body read by path, as rest-assured's {@code body("path", matcher)} and
 * {@code extract().path("path")} read it, without their cost: rest-assured compiles a Groovy
 * script for every read (2–5 ms of the test JVM's CPU each, thousands per run). Use
 * {@code .body(json("items[0].status", equalTo("succeeded")))} and {@code read(body, "id")}.
 *
 * <p>The paths the tests use, with GPath's meaning: {@code a.b}; {@code a[0]}, {@code a[-1]}
 * (from the end); {@code a.'quoted key'}; a name read from a list reads it from each element
 * ({@code items.id}: every id); {@code size()}; {@code containsKey('k')};
 * {@code find { it.k == 'v' }} (the first such element, or null) and {@code findAll { ... }}
 * (every one), comparing {@code it} or a name of it with a string, number, boolean or null.
 * Anything else is refused, so a path is never read other than as written. Values come as
 * rest-assured gives them: Integer, Long or BigInteger; Float or Double; String, Boolean, null;
 * List and Map.
 */
public final class JsonBody {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonBody() {
    }

    /** Matches a body whose value at {@code path} matches {@code matcher}. */
    public static Matcher<String> json(String path, Matcher<?> matcher) {
        return new PathMatcher(path, matcher);
    }

    /** The value at {@code path} of a JSON document. */
    @SuppressWarnings("unchecked")
    public static <T> T read(String body, String path) {
        return (T) new Path(path).read(parse(body));
    }

    private static Object parse(String body) {
        try {
            return value(MAPPER.readTree(body));
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + abbreviated(body), e);
        }
    }

    private static Object value(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                map.put(field.getKey(), value(field.getValue()));
            }
            return map;
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>(node.size());
            node.forEach(element -> list.add(value(element)));
            return list;
        }
        if (node.isInt()) {
            return node.intValue();
        }
        if (node.isLong()) {
            return node.longValue();
        }
        if (node.isBigInteger()) {
            return node.bigIntegerValue();
        }
        if (node.isNumber()) {
            double d = node.doubleValue();
            float f = (float) d;
            return Float.isInfinite(f) ? (Object) d : (Object) f;
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        return node.asText();
    }

    private static String abbreviated(String body) {
        return body.length() <= 2000 ? body : body.substring(0, 2000) + "…";
    }

    private static final class PathMatcher extends BaseMatcher<String> {
        private final String path;
        private final Matcher<?> matcher;
        private String read = null;

        PathMatcher(String path, Matcher<?> matcher) {
            this.path = path;
            this.matcher = matcher;
        }

        @Override
        public boolean matches(Object body) {
            Object value;
            try {
                value = new Path(path).read(parse(String.valueOf(body)));
            } catch (IllegalArgumentException e) {
                read = e.getMessage();
                return false;
            }
            read = String.valueOf(value);
            return matcher.matches(value);
        }

        @Override
        public void describeTo(Description description) {
            description.appendText("JSON path ").appendValue(path).appendText(" ").appendDescriptionOf(matcher);
            if (read != null) {
                description.appendText(" (it read: " + read + ")");
            }
        }
    }

    /** One path, parsed into its steps. */
    private static final class Path {
        private final String text;
        private final List<Step> steps = new ArrayList<>();
        private int at;

        Path(String text) {
            this.text = text;
            parseSteps();
        }

        Object read(Object root) {
            Object current = root;
            for (Step step : steps) {
                current = step.apply(current);
            }
            return current;
        }

        private void parseSteps() {
            skipSpaces();
            while (at < text.length()) {
                if (peek('[')) {
                    steps.add(index());
                } else {
                    if (!steps.isEmpty()) {
                        expect('.');
                    }
                    steps.add(member());
                    while (peek('[')) {
                        steps.add(index());
                    }
                }
                skipSpaces();
            }
        }

        private Step member() {
            if (peek('\'')) {
                String name = quoted();
                return current -> property(current, name);
            }
            String name = name();
            skipSpaces();
            switch (name) {
                case "size" -> {
                    if (peek('(')) {
                        expect('(');
                        expect(')');
                        return Path::size;
                    }
                }
                case "containsKey" -> {
                    if (peek('(')) {
                        expect('(');
                        String key = quoted();
                        expect(')');
                        return current -> asMap(current, "containsKey").containsKey(key);
                    }
                }
                case "find", "findAll" -> {
                    if (peek('{')) {
                        Condition condition = condition();
                        boolean all = name.equals("findAll");
                        return current -> {
                            List<Object> found = new ArrayList<>();
                            for (Object element : asList(current, name)) {
                                if (condition.holds(element)) {
                                    if (!all) {
                                        return element;
                                    }
                                    found.add(element);
                                }
                            }
                            return all ? found : null;
                        };
                    }
                }
                default -> {
                }
            }
            return current -> property(current, name);
        }

        /** {@code { it == v }} or {@code { it.a.b == v }}. */
        private Condition condition() {
            expect('{');
            skipSpaces();
            String it = name();
            if (!it.equals("it")) {
                throw refused("a condition starts with 'it'");
            }
            List<String> names = new ArrayList<>();
            while (peek('.')) {
                expect('.');
                names.add(peek('\'') ? quoted() : name());
            }
            skipSpaces();
            expect('=');
            expect('=');
            skipSpaces();
            Object expected = literal();
            skipSpaces();
            expect('}');
            return element -> {
                Object value = element;
                for (String n : names) {
                    value = property(value, n);
                }
                return same(value, expected);
            };
        }

        private Object literal() {
            if (peek('\'')) {
                return quoted();
            }
            int start = at;
            while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || "-+.".indexOf(text.charAt(at)) >= 0)) {
                at++;
            }
            String word = text.substring(start, at);
            return switch (word) {
                case "true" -> true;
                case "false" -> false;
                case "null" -> null;
                default -> {
                    try {
                        yield new BigDecimal(word);
                    } catch (NumberFormatException e) {
                        throw refused("a literal is a quoted string, a number, true, false or null");
                    }
                }
            };
        }

        private Step index() {
            expect('[');
            int start = at;
            while (at < text.length() && (Character.isDigit(text.charAt(at)) || text.charAt(at) == '-')) {
                at++;
            }
            int index;
            try {
                index = Integer.parseInt(text.substring(start, at));
            } catch (NumberFormatException e) {
                throw refused("an index is a whole number");
            }
            expect(']');
            return current -> {
                List<Object> list = asList(current, "[" + index + "]");
                int i = index < 0 ? list.size() + index : index;
                return i >= 0 && i < list.size() ? list.get(i) : null;
            };
        }

        private String name() {
            int start = at;
            while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || "_-$".indexOf(text.charAt(at)) >= 0)) {
                at++;
            }
            if (start == at) {
                throw refused("a name");
            }
            return text.substring(start, at);
        }

        private String quoted() {
            expect('\'');
            int end = text.indexOf('\'', at);
            if (end < 0) {
                throw refused("a closing quote");
            }
            String s = text.substring(at, end);
            at = end + 1;
            return s;
        }

        private boolean peek(char c) {
            return at < text.length() && text.charAt(at) == c;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw refused("'" + c + "'");
            }
            at++;
        }

        private void skipSpaces() {
            while (at < text.length() && text.charAt(at) == ' ') {
                at++;
            }
        }

        private IllegalStateException refused(String wanted) {
            return new IllegalStateException("unsupported JSON path '" + text + "': wanted " + wanted + " at " + at);
        }

        private static Object property(Object current, String name) {
            if (current instanceof Map<?, ?> map) {
                return map.get(name);
            }
            if (current instanceof List<?> list) {
                List<Object> each = new ArrayList<>(list.size());
                for (Object element : list) {
                    if (element != null) {
                        each.add(property(element, name));
                    }
                }
                return each;
            }
            throw new IllegalArgumentException("cannot read '" + name + "' of " + current);
        }

        private static Object size(Object current) {
            if (current instanceof List<?> list) {
                return list.size();
            }
            if (current instanceof Map<?, ?> map) {
                return map.size();
            }
            if (current instanceof String s) {
                return s.length();
            }
            throw new IllegalArgumentException("no size() of " + current);
        }

        private static List<Object> asList(Object current, String step) {
            if (current instanceof List<?> list) {
                @SuppressWarnings("unchecked")
                List<Object> objects = (List<Object>) list;
                return objects;
            }
            throw new IllegalArgumentException(step + " needs a list, not " + current);
        }

        private static Map<?, ?> asMap(Object current, String step) {
            if (current instanceof Map<?, ?> map) {
                return map;
            }
            throw new IllegalArgumentException(step + " needs an object, not " + current);
        }

        /** Groovy's {@code ==} for what JSON holds: numbers by value, the rest by equality. */
        private static boolean same(Object value, Object expected) {
            if (value instanceof Number n && expected instanceof BigDecimal d) {
                return new BigDecimal(n.toString()).compareTo(d) == 0;
            }
            return Objects.equals(value, expected);
        }

        @FunctionalInterface
        private interface Step {
            Object apply(Object current);
        }

        @FunctionalInterface
        private interface Condition {
            boolean holds(Object element);
        }
    }
}

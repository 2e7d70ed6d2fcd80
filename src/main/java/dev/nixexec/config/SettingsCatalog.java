package dev.nixexec.config;

import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The {@code nixexec.*} settings read off {@link NixExecConfig} itself, so the YAML loader and
 * the configuration reference (docs/configuration.md, checked by a test) cannot drift from it.
 */
public final class SettingsCatalog {

    /**
     * One leaf setting: its full property name, value type, default if it has one, the only values
     * it may take ({@link OneOf}; empty: any) and whether it must be more than 0 ({@link NonZero}).
     */
    public record Setting(String property, Class<?> type, boolean list, Optional<String> defaultValue,
            List<String> allowed, boolean nonZero) {
    }

    private SettingsCatalog() {
    }

    /** Every leaf setting of {@link NixExecConfig}, sorted by name. */
    public static List<Setting> nixexec() {
        List<Setting> settings = new ArrayList<>();
        collect(NixExecConfig.class, "nixexec", settings);
        settings.sort(Comparator.comparing(Setting::property));
        return List.copyOf(settings);
    }

    public static Optional<Setting> find(String property) {
        return nixexec().stream().filter(s -> s.property().equals(property)).findFirst();
    }

    private static void collect(Class<?> group, String prefix, List<Setting> into) {
        Method[] methods = group.getDeclaredMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            if (method.isDefault() || method.isSynthetic() || method.getParameterCount() > 0
                    || java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            WithName withName = method.getAnnotation(WithName.class);
            String property = prefix + "." + (withName != null ? withName.value() : kebab(method.getName()));
            Type type = method.getGenericReturnType();
            // a group: NixExecConfig's nested interfaces and the top-level ones it names (LimitSettings, ...)
            if (type instanceof Class<?> c && c.isInterface() && c.getPackage() == NixExecConfig.class.getPackage()) {
                collect(c, property, into);
                continue;
            }
            Optional<String> defaultValue = Optional.ofNullable(method.getAnnotation(WithDefault.class)).map(WithDefault::value);
            Type value = unwrap(type, Optional.class);
            boolean list = raw(value) == List.class;
            Class<?> element = list ? raw(((ParameterizedType) value).getActualTypeArguments()[0]) : raw(value);
            List<String> allowed = Optional.ofNullable(method.getAnnotation(OneOf.class)).map(o -> List.of(o.value())).orElse(List.of());
            into.add(new Setting(property, element, list, defaultValue, allowed, method.isAnnotationPresent(NonZero.class)));
        }
    }

    private static Type unwrap(Type type, Class<?> wrapper) {
        return type instanceof ParameterizedType p && p.getRawType() == wrapper ? p.getActualTypeArguments()[0] : type;
    }

    private static Class<?> raw(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    /** SmallRye's default naming: {@code maxOutputBytes} is {@code max-output-bytes}. */
    static String kebab(String camel) {
        StringBuilder out = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}

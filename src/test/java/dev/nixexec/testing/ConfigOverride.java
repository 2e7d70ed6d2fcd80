package dev.nixexec.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;

/** A view of a config interface with some of its no-argument methods answered differently. */
public final class ConfigOverride {

    private ConfigOverride() {
    }

    @SuppressWarnings("unchecked")
    public static <T> T of(Class<T> type, T base, Map<String, Object> answers) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (answers.containsKey(method.getName()) && method.getParameterCount() == 0) {
                return answers.get(method.getName());
            }
            try {
                return method.invoke(base, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}

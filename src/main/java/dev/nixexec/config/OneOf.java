package dev.nixexec.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The only values a text setting of {@link NixExecConfig} may take. The nix-exec YAML loader
 * refuses any other with the file and the key ({@link SettingsCatalog} reads this annotation), so
 * a misspelt value stops start-up there instead of wherever the setting is first used.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface OneOf {
    String[] value();
}

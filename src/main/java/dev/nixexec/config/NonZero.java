package dev.nixexec.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A number or duration setting of {@link NixExecConfig} that must be more than 0 (negative ones
 * are refused anyway): 0 would leave the service running but doing nothing, or doing it unbounded.
 * The nix-exec YAML loader refuses 0 with the file and the key ({@link SettingsCatalog} reads this).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface NonZero {
}

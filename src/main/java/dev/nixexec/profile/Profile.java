package dev.nixexec.profile;

/** A named spec: one of nixo's built-ins, or a tenant's own (defined by its admin). */
public record Profile(String name, String description, Spec spec, ProfileLimits limits, boolean builtIn) {

    public Profile {
        description = description == null ? "" : description;
        limits = limits == null ? ProfileLimits.NONE : limits;
    }
}

package dev.nixexec.mcp;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import java.util.Optional;

/** The {@link Caller} travels inside the MCP request's {@link SecurityIdentity} as an attribute. */
final class CallerIdentity {

    static final String CALLER = "nixexec.caller";

    private CallerIdentity() {
    }

    static SecurityIdentity of(Caller caller) {
        String name = caller.keyId() == null ? "local" : caller.keyId().toString();
        return QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(name))
                .addRole(caller.role().id())
                .addAttribute(CALLER, caller)
                .build();
    }

    static Caller caller(SecurityIdentity identity) {
        return find(identity).orElseThrow(() ->
                new Refusal(Refusal.Kind.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>"));
    }

    static Optional<Caller> find(SecurityIdentity identity) {
        return Optional.ofNullable(identity == null ? null : identity.<Caller>getAttribute(CALLER));
    }

    /**
     * The caller of a tool that submits, cancels or writes: an auditor key only reads, and is told
     * so before the tool does anything.
     */
    static Caller writer(SecurityIdentity identity, String tool) {
        Caller caller = caller(identity);
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key may only read: "
                    + tool + " is refused");
        }
        return caller;
    }
}

package dev.nixexec.mcp;

import dev.nixexec.tenant.Tenants;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Looks the bearer key up (a database read, so off the event loop) and yields its caller. */
@ApplicationScoped
public class ApiKeyIdentityProvider implements IdentityProvider<TokenAuthenticationRequest> {

    private final Tenants tenants;

    public ApiKeyIdentityProvider(Tenants tenants) {
        this.tenants = tenants;
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        return context.runBlocking(() -> tenants.authenticate(request.getToken().getToken())
                .map(CallerIdentity::of)
                .orElseThrow(() -> new AuthenticationFailedException("the API key is unknown or revoked")));
    }
}

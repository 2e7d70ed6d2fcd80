package dev.nixexec.mcp;

import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/**
 * Looks the bearer key up and yields its caller: at once when this node keeps the key, else by a
 * database read off the event loop.
 */
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
        String secret = request.getToken().getToken();
        Optional<Caller> kept = tenants.kept(secret);
        if (kept.isPresent()) {
            return Uni.createFrom().item(CallerIdentity.of(kept.get()));
        }
        return context.runBlocking(() -> tenants.authenticate(secret)
                .map(CallerIdentity::of)
                .orElseThrow(() -> new AuthenticationFailedException("the API key is unknown or revoked")));
    }
}
